// createEngine({ sync }) options, as a zod schema (the type is inferred from it).
import { z } from 'zod';

export const SyncOptionsSchema = z.object({
  /** the sync service's base URL, e.g. https://sync.example.com/ (a path prefix behind a proxy is kept) */
  url: z.string().url(),
  /** the service account (server/'s apps table) — not the engine's local appId */
  appId: z.string().min(1),
  appKey: z.string().min(1),
  /** galleries to share; default every gallery of the engine's account */
  galleries: z.array(z.string().min(1)).optional(),
  /** team passphrase: galleries are end-to-end encrypted (docs/sync.md); the service sees only ciphertext */
  passphrase: z.string().min(1).optional(),
  /** send the enrolled photos too: true for every shared gallery, or the galleries that ask for it (default false: templates only) */
  photos: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
  /** pull this often even without a live nudge (ms); the event stream normally makes it moot */
  pollMs: z.number().int().min(1000).default(30_000),
  /** changes per push request */
  batchSize: z.number().int().min(1).max(256).default(100),
});
export type SyncOptions = z.infer<typeof SyncOptionsSchema>;
export type SyncOptionsInput = z.input<typeof SyncOptionsSchema>;

/** whether `gallery`'s photos go to the service */
export function sharesPhotos(options: Pick<SyncOptions, 'photos'>, gallery: string): boolean {
  return options.photos === true || (Array.isArray(options.photos) && options.photos.includes(gallery));
}
