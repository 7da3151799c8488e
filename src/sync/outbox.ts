// The sync's own IndexedDB database (`<storage name>:sync`, apart from the galleries', whose
// schema this leaves alone): the outbox of local changes not yet acknowledged by the service,
// in the order they were made, and the pull cursor. An entry is deleted only after the
// service answered for it (accepted or refused), so a closed tab, a crash or a week offline
// loses nothing that reached the outbox; a retried push is answered from the service's log.
// It also remembers which template ids the service has (acknowledged pushes, pulled enrolls):
// at start the sync sends any local template it does not know of — one whose outbox write
// was lost (the page died between the gallery's commit and the outbox's), or one enrolled
// before sync was turned on.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Box } from '../store/schema.ts';

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
  outbox: { key: number; value: { change: LocalChange } };
  state: { key: string; value: unknown };
  /** template ids the service has, per scope and gallery: [scope, gallery, templateId] */
  known: { key: [string, string, string]; value: 1 };
}

export class Outbox {
  private constructor(
    private readonly db: IDBPDatabase<SyncDB>,
    /** service URL + app: a cursor belongs to one service and account */
    private readonly scope: string,
  ) {}

  static async open(storageName: string, scope: string): Promise<Outbox> {
    const db = await openDB<SyncDB>(`${storageName}:sync`, 2, {
      upgrade(d, oldVersion) {
        if (oldVersion < 1) {
          d.createObjectStore('outbox', { autoIncrement: true });
          d.createObjectStore('state');
        }
        if (oldVersion < 2) d.createObjectStore('known');
      },
    });
    return new Outbox(db, scope);
  }

  async add(changes: readonly LocalChange[]): Promise<void> {
    const tx = this.db.transaction('outbox', 'readwrite');
    await Promise.all([...changes.map((change) => tx.store.add({ change })), tx.done]);
  }

  /** the oldest `limit` entries, in the order they were made */
  async peek(limit: number): Promise<OutboxEntry[]> {
    const tx = this.db.transaction('outbox');
    const entries: OutboxEntry[] = [];
    let cursor = await tx.store.openCursor();
    while (cursor && entries.length < limit) {
      entries.push({ seq: cursor.key, change: cursor.value.change });
      cursor = await cursor.continue();
    }
    return entries;
  }

  async all(): Promise<LocalChange[]> {
    return (await this.db.getAll('outbox')).map((v) => v.change);
  }

  async remove(seqs: readonly number[]): Promise<void> {
    const tx = this.db.transaction('outbox', 'readwrite');
    await Promise.all([...seqs.map((seq) => tx.store.delete(seq)), tx.done]);
  }

  /** Marks template ids as on the service. */
  async markKnown(gallery: string, templateIds: readonly string[]): Promise<void> {
    if (templateIds.length === 0) return;
    const tx = this.db.transaction('known', 'readwrite');
    await Promise.all([...templateIds.map((id) => tx.store.put(1, [this.scope, gallery, id])), tx.done]);
  }

  /** The template ids of `gallery` the service is known to have. */
  async known(gallery: string): Promise<Set<string>> {
    const keys = await this.db.getAllKeys('known', IDBKeyRange.bound([this.scope, gallery, ''], [this.scope, gallery, '\uffff']));
    return new Set(keys.map((k) => k[2]));
  }

  count(): Promise<number> {
    return this.db.count('outbox');
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
