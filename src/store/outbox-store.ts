// The sync's outbox as kept in the galleries' database (schema.ts, `outbox`): the store writes
// a write's queued changes in that write's own transaction (GalleryStore's journal); the sync
// reads them in order and deletes them once the service answered. Values are opaque here.
import type { IDBPDatabase } from 'idb';
import type { GalleryDB, OutboxRecord } from './schema.ts';
import { writable, type Enqueue, type atomically } from './transaction.ts';

type Db = IDBPDatabase<GalleryDB>;
type Bounded = <T>(tx: Parameters<typeof atomically>[0], work: (enqueue: Enqueue) => Promise<T>) => Promise<T>;

export interface OutboxEntry {
  /** its place in the outbox: the order the changes were made */
  key: number;
  record: OutboxRecord;
}

/** The part of a readwrite transaction's `outbox` store a removal needs. */
interface OutboxWrites {
  index(name: 'byTemplate'): { getAllKeys(query: IDBKeyRange): Promise<number[]> };
  delete(key: number): Promise<void>;
}

/**
 * Inside a removal's transaction: deletes the queued enrolls of the templates in `range` (a
 * key range over [appId, gallery, subject, faceId]); never sent, their data is gone with them.
 * One that is being pushed right now is still removed on the service by the removal queued
 * after it.
 */
export async function dropQueuedEnrolls(outbox: OutboxWrites, range: IDBKeyRange, enqueue: Enqueue): Promise<void> {
  for (const key of await outbox.index('byTemplate').getAllKeys(range)) enqueue(outbox.delete(key));
}

export class OutboxStore {
  constructor(
    private readonly db: () => Promise<Db>,
    private readonly bounded: Bounded,
  ) {}

  /** Queues changes that no gallery write of this moment describes (recovery, migration). */
  async add(records: readonly OutboxRecord[]): Promise<void> {
    if (records.length === 0) return;
    const db = await this.db();
    const tx = writable(() => db.transaction('outbox', 'readwrite'));
    await this.bounded(tx, async (enqueue) => {
      for (const record of records) enqueue(tx.store.add(record));
    });
  }

  /** The oldest `limit` entries (default all), in the order they were made. */
  async peek(limit?: number): Promise<OutboxEntry[]> {
    const tx = (await this.db()).transaction('outbox');
    return this.bounded(tx, async () => {
      const [keys, records] = await Promise.all([tx.store.getAllKeys(undefined, limit), tx.store.getAll(undefined, limit)]);
      return keys.map((key, i) => ({ key, record: records[i]! }));
    });
  }

  async remove(keys: readonly number[]): Promise<void> {
    if (keys.length === 0) return;
    const db = await this.db();
    const tx = writable(() => db.transaction('outbox', 'readwrite'));
    await this.bounded(tx, async (enqueue) => {
      for (const key of keys) enqueue(tx.store.delete(key));
    });
  }

  async count(): Promise<number> {
    const tx = (await this.db()).transaction('outbox');
    return this.bounded(tx, () => tx.store.count());
  }
}
