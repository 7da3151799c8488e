// The request surface's configuration: accepted credentials, the account typed calls act as,
// the storage name. Part of createEngine()'s options.
import { z } from 'zod';

/** The pair accepted when none is configured — for local demos only (docs/api.md). */
export const DEMO_CREDENTIALS = { appId: 'demo', appKey: 'demo' } as const;
export const DEFAULT_STORAGE_NAME = 'kairos-in-browser';

export const CredentialSchema = z.object({
  appId: z.string().min(1).max(256),
  appKey: z.string().min(1).max(1024),
});
export type Credential = z.infer<typeof CredentialSchema>;

export const ApiOptionsSchema = z.object({
  /** app_id/app_key pairs that HTTP-shaped requests (shims, engine.handle) must carry; default demo/demo */
  credentials: z.array(CredentialSchema).min(1).default([{ ...DEMO_CREDENTIALS }]),
  /** the account typed calls (engine.detect(…), engine.enroll(…)) act as; default: the first credential's appId */
  appId: z.string().min(1).max(256).optional(),
  /** name of the IndexedDB database holding galleries and media (one engine per name) */
  storageName: z.string().min(1).default(DEFAULT_STORAGE_NAME),
  /** longest one storage transaction (or opening the database) may take before it is aborted and reported, ms; default 20 000 */
  storageTimeoutMs: z.number().int().min(100).max(600_000).default(20_000),
});
export type ApiOptionsInput = z.input<typeof ApiOptionsSchema>;
export interface ApiOptions {
  credentials: Credential[];
  appId: string;
  storageName: string;
  storageTimeoutMs: number;
}

export function resolveApiOptions(input: ApiOptionsInput = {}): ApiOptions {
  const o = ApiOptionsSchema.parse(input);
  return { credentials: o.credentials, appId: o.appId ?? o.credentials[0]!.appId, storageName: o.storageName, storageTimeoutMs: o.storageTimeoutMs };
}
