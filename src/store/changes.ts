// Change notices: every committed write of a GalleryStore is told to listeners in the same
// context (synchronously, before the write's promise resolves) and to every other tab and
// worker of the origin through a BroadcastChannel named after the database.
//
// Notices describe the write by face id, and the store never reuses a face id by itself, so
// applying one twice, or to data that already contains it, changes nothing: a listener may
// receive a notice for a write it has already read from storage. The one exception is an
// import that keeps a gallery file's face ids: one of them may have been removed from the
// gallery before, so its notice says `revives` (see search-index.ts). Writes too big to describe cheaply
// (a bulk import, a removed gallery) send `rebuild`: read the gallery from storage again.
import { z } from 'zod';
import { IndexRowSchema } from './schema.ts';

/** More rows than this go out as a `rebuild` notice: 1000 × 512-d floats is 2 MB. */
export const MAX_ROWS_PER_NOTICE = 1000;
/** Removed face ids are small (36 characters); only a huge removal is worth a `rebuild`. */
export const MAX_IDS_PER_NOTICE = 10_000;

const Gallery = { appId: z.string(), gallery: z.string() };

export const StoreChangeSchema = z.discriminatedUnion('kind', [
  /** templates added (all of them: the rows carry the embeddings) */
  z.object({
    kind: z.literal('added'),
    ...Gallery,
    rows: z.array(IndexRowSchema),
    /** the rows may bring back face ids removed earlier (an import keeping a file's ids): they are new, not late */
    revives: z.boolean().optional(),
  }),
  /** templates removed */
  z.object({ kind: z.literal('removed'), ...Gallery, faceIds: z.array(z.string()) }),
  /** the gallery changed in ways not listed: re-read it (`revives`: removed face ids may be back) */
  z.object({ kind: z.literal('rebuild'), ...Gallery, revives: z.boolean().optional() }),
  /** anything may have changed (the database was deleted or upgraded elsewhere) */
  z.object({ kind: z.literal('reset') }),
]);
export type StoreChange = z.infer<typeof StoreChangeSchema>;

/** A notice on the wire: the change plus the id of the GalleryStore instance that wrote it. */
const NoticeSchema = z.object({ source: z.string(), change: StoreChangeSchema });
export type Notice = z.infer<typeof NoticeSchema>;

export type ChangeListener = (change: StoreChange) => void;

export function changeChannelName(databaseName: string): string {
  return `${databaseName}:gallery-changes`;
}

/**
 * A notice from another context, or `reset` when it cannot be read: a tab running another
 * version of the app may speak another format, and assuming the worst is always safe.
 */
export function readNotice(data: unknown): Notice | { source: undefined; change: StoreChange } {
  const parsed = NoticeSchema.safeParse(data);
  return parsed.success ? parsed.data : { source: undefined, change: { kind: 'reset' } };
}

/** The writer's side: local listeners plus the broadcast. */
export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private readonly channel: BroadcastChannel | undefined;

  constructor(
    channelName: string,
    private readonly source: string,
    broadcast: boolean,
  ) {
    this.channel = broadcast && typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName) : undefined;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Call after the write committed: listeners must never see a write that may roll back. */
  publish(change: StoreChange, { broadcast = true }: { broadcast?: boolean } = {}): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        // a faulty listener must not fail a write that has already committed; report it apart
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    if (broadcast) this.channel?.postMessage({ source: this.source, change } satisfies Notice);
  }

  close(): void {
    this.listeners.clear();
    this.channel?.close();
  }
}
