// The sync's queue and bookkeeping. The outbox of local changes not yet acknowledged by the
// service lives in the galleries' own database (store/outbox-store.ts): each change is written
// by the gallery write's own transaction (the store's journal), so a crash at any instant
// leaves the write and its change both or neither — no removal can be lost and come back from
// the service. An entry is deleted only after the service answered for it (accepted or
// refused), so a closed tab, a crash or a week offline loses nothing; a retried push is
// answered from the service's log.
// The sync's own database (`<storage name>:sync`) keeps the pull cursor, held galleries and
// which template ids the service has (acknowledged pushes, pulled enrolls): at start the sync
// sends any local template it does not know of — one enrolled before sync was turned on.
// Its former `outbox` store (before the galleries' database had one) is moved over at open.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { OutboxStore } from '../store/outbox-store.ts';
import { writable } from '../store/transaction.ts';
import type { Box, OutboxRecord } from '../store/schema.ts';

/** A local change as queued: plain data (it never leaves the device in this form). */
export type LocalChange =
  | {
      kind: 'enroll';
      changeId: string;
      gallery: string;
      subject: string;
      templateId: string;
      modelId: string;
      enrolledAt: string;
      embedding: Float32Array;
      box: Box;
      quality: number;
      attributes: Record<string, unknown>;
      photo?: { bytes: ArrayBuffer; type: string };
    }
  | { kind: 'remove_template'; changeId: string; gallery: string; subject: string; templateId: string }
  | { kind: 'remove_subject'; changeId: string; gallery: string; subject: string }
  | { kind: 'remove_gallery'; changeId: string; gallery: string };

export interface OutboxEntry {
  seq: number;
  change: LocalChange;
}

interface SyncDB extends DBSchema {
  /** the former outbox: emptied into the galleries' database at open */
  outbox: { key: number; value: { change: LocalChange } };
  state: { key: string; value: unknown };
  /**
   * template ids the service has, per scope and gallery: a block of ids under [scope, gallery,
   * '#' + a random id] (one record per pull page or push: IndexedDB charges per record), or —
   * written by earlier versions — one id under [scope, gallery, templateId] (value 1)
   */
  known: { key: [string, string, string]; value: 1 | string[] };
}

/** Block keys start with a character no template id has (protocol.ts: ClientIdSchema). */
const BLOCK_PREFIX = '#';

/** The template ids one `known` record stands for. */
function idsOf(key: [string, string, string], value: 1 | string[]): string[] {
  return Array.isArray(value) ? value : [key[2]];
}

/** The outbox record of a local change of account `appId`: a queued enroll names its template. */
export function outboxRecord(appId: string, change: LocalChange): OutboxRecord {
  return change.kind === 'enroll' ? { change, template: [appId, change.gallery, change.subject, change.templateId] } : { change };
}

export class Outbox {
  private constructor(
    private readonly db: IDBPDatabase<SyncDB>,
    /** service URL + app: a cursor belongs to one service and account */
    private readonly scope: string,
    /** the galleries' database's outbox */
    private readonly queue: OutboxStore,
  ) {}

  /** Opens the sync's database and moves a former outbox's entries (account `appId`'s) into `queue`. */
  static async open(storageName: string, scope: string, queue: OutboxStore, appId: string): Promise<Outbox> {
    const db = await openDB<SyncDB>(`${storageName}:sync`, 2, {
      upgrade(d, oldVersion) {
        if (oldVersion < 1) {
          d.createObjectStore('outbox', { autoIncrement: true });
          d.createObjectStore('state');
        }
        if (oldVersion < 2) d.createObjectStore('known');
      },
    });
    const former = await db.getAll('outbox');
    if (former.length > 0) {
      // copied first, then cleared: a crash between sends some twice, which the service answers from its log (same change ids)
      await queue.add(former.map((v) => outboxRecord(appId, v.change)));
      await db.clear('outbox');
    }
    return new Outbox(db, scope, queue);
  }

  /** Queues changes no gallery write carries (templates the service lacks, found at start). */
  add(appId: string, changes: readonly LocalChange[]): Promise<void> {
    return this.queue.add(changes.map((change) => outboxRecord(appId, change)));
  }

  /** the oldest `limit` entries (default all), in the order they were made */
  async peek(limit?: number): Promise<OutboxEntry[]> {
    return (await this.queue.peek(limit)).map((e) => ({ seq: e.key, change: e.record.change as LocalChange }));
  }

  async all(): Promise<LocalChange[]> {
    return (await this.queue.peek()).map((e) => e.record.change as LocalChange);
  }

  remove(seqs: readonly number[]): Promise<void> {
    return this.queue.remove(seqs);
  }

  count(): Promise<number> {
    return this.queue.count();
  }

  /** Marks template ids as on the service (one record for them all). */
  async markKnown(gallery: string, templateIds: readonly string[]): Promise<void> {
    if (templateIds.length === 0) return;
    await this.db.put('known', [...templateIds], [this.scope, gallery, `${BLOCK_PREFIX}${crypto.randomUUID()}`]);
  }

  /** The template ids of `gallery` the service is known to have. */
  async known(gallery: string): Promise<Set<string>> {
    const tx = this.db.transaction('known');
    const range = this.galleryRange(gallery);
    const [keys, values] = await Promise.all([tx.store.getAllKeys(range), tx.store.getAll(range), tx.done]);
    return new Set(keys.flatMap((key, i) => idsOf(key, values[i]!)));
  }

  /** Forgets template ids removed here (every id of `gallery` without `templateIds`). */
  async forget(gallery: string, templateIds?: readonly string[]): Promise<void> {
    const tx = writable(() => this.db.transaction('known', 'readwrite'));
    if (templateIds === undefined) {
      await Promise.all([tx.store.delete(this.galleryRange(gallery)), tx.done]);
      return;
    }
    const gone = new Set(templateIds);
    const writes: Promise<unknown>[] = [];
    // a removal is rare next to pulls: rewriting the gallery's blocks that hold a removed id is fine
    for (let cursor = await tx.store.openCursor(this.galleryRange(gallery)); cursor; cursor = await cursor.continue()) {
      const ids = idsOf(cursor.key, cursor.value);
      const kept = ids.filter((id) => !gone.has(id));
      if (kept.length === ids.length) continue;
      writes.push(kept.length === 0 ? cursor.delete() : cursor.update(kept));
    }
    await Promise.all([...writes, tx.done]);
  }

  private galleryRange(gallery: string): IDBKeyRange {
    return IDBKeyRange.bound([this.scope, gallery, ''], [this.scope, gallery, '\uffff']);
  }

  async cursor(): Promise<string> {
    const value = await this.db.get('state', `cursor:${this.scope}`);
    return typeof value === 'string' ? value : '0';
  }

  async setCursor(cursor: string): Promise<void> {
    await this.db.put('state', cursor, `cursor:${this.scope}`);
  }

  /** galleries held back from pulls (key missing or wrong) → the cursor to catch them up from */
  async held(): Promise<Record<string, string>> {
    const value = await this.db.get('state', `held:${this.scope}`);
    return value && typeof value === 'object' ? { ...(value as Record<string, string>) } : {};
  }

  async setHeld(held: Record<string, string>): Promise<void> {
    await this.db.put('state', held, `held:${this.scope}`);
  }

  /** per gallery, the retention days last given to the service (null: none) */
  async sharedRetention(): Promise<Record<string, number | null>> {
    const value = await this.db.get('state', `retention:${this.scope}`);
    return value && typeof value === 'object' ? { ...(value as Record<string, number | null>) } : {};
  }

  async setSharedRetention(shared: Record<string, number | null>): Promise<void> {
    await this.db.put('state', shared, `retention:${this.scope}`);
  }

  async lastSyncedAt(): Promise<number | null> {
    const value = await this.db.get('state', `synced:${this.scope}`);
    return typeof value === 'number' ? value : null;
  }

  async setLastSyncedAt(at: number): Promise<void> {
    await this.db.put('state', at, `synced:${this.scope}`);
  }

  close(): void {
    this.db.close();
  }
}
