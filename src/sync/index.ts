// Team galleries: createEngine({ sync }) shares the account's galleries through the sync
// service (server/), offline-first. IndexedDB stays the source of every answer; see docs/sync.md.
import { EMBEDDING } from '../models/catalog.ts';
import { GalleryStore } from '../store/gallery-store.ts';
import { SyncClient } from './client.ts';
import { GalleryKeys } from './gallery-keys.ts';
import { SyncOptionsSchema, type SyncOptionsInput } from './options.ts';
import { Outbox, type LocalChange } from './outbox.ts';
import { Replicator } from './replicator.ts';
import { StatusFeed, type SyncStatus, type SyncStatusListener } from './status.ts';

export { DISABLED_STATUS, type SyncStatus, type SyncStatusListener } from './status.ts';
export type { SyncOptionsInput } from './options.ts';
export type { SyncFailure, SyncFailureCode } from './errors.ts';

export interface Sync {
  status(): SyncStatus;
  subscribe(listener: SyncStatusListener): () => void;
  syncNow(): Promise<SyncStatus>;
  /**
   * Where a removal of `gallery` (or of its `subject`) made here stands: 'queued' while a
   * removal of it waits in the outbox, 'erased' once the service acknowledged it (its log then
   * tombstones it on every device that syncs), 'not-synced' for an account or gallery not shared.
   */
  erasure(appId: string, gallery: string, subject?: string): Promise<'not-synced' | 'queued' | 'erased'>;
  close(): void;
}

/**
 * Starts syncing `store`'s writes for the local account `appId`. Returns at once: the first
 * push/pull runs in the background (offline is a state, not an error).
 */
export async function startSync(input: SyncOptionsInput, local: { store: GalleryStore; appId: string; storageName: string; timeoutMs?: number }): Promise<Sync> {
  const options = SyncOptionsSchema.parse(input);
  const client = new SyncClient(options.url, options.appId, options.appKey);
  // the applier writes through a store instance of its own (see apply.ts)
  const applier = await GalleryStore.open({ name: local.storageName, ...(local.timeoutMs === undefined ? {} : { timeoutMs: local.timeoutMs }) });
  const outbox = await Outbox.open(local.storageName, `${options.url}|${options.appId}|${local.appId}`, applier.outbox, local.appId);
  const status = new StatusFeed();
  const replicator = new Replicator({
    options,
    client,
    outbox,
    keys: new GalleryKeys(client, options.passphrase),
    applier,
    appId: local.appId,
    modelId: EMBEDDING.id,
    status,
  });
  const hooks = [
    local.store.journal((write) => replicator.journal(write)),
    local.store.onCommit((write) => replicator.committed(write, true)),
    applier.onCommit((write) => replicator.committed(write, false)),
  ];
  await replicator.start();
  return {
    status: () => status.get(),
    subscribe: (listener) => status.subscribe(listener),
    syncNow: async () => {
      await replicator.syncNow();
      return status.get();
    },
    erasure: async (appId, gallery, subject) => {
      if (appId !== local.appId || !(options.galleries === undefined || options.galleries.includes(gallery))) return 'not-synced';
      const covers = (c: LocalChange) =>
        c.gallery === gallery && (c.kind === 'remove_gallery' || (subject !== undefined && (c.kind === 'remove_subject' || c.kind === 'remove_template') && c.subject === subject));
      return (await outbox.all()).some(covers) ? 'queued' : 'erased';
    },
    close: () => {
      for (const unhook of hooks) unhook();
      replicator.close();
      applier.close();
      outbox.close();
    },
  };
}
