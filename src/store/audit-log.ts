// The audit log (docs/privacy.md): an append-only record of which calls touched which gallery
// and subject — never images or embeddings — bounded to the newest AUDIT_MAX_EVENTS. Erasing a
// subject deletes the events that named it inside the removal's transaction, and they come back
// without the name afterwards (best effort), so the log keeps that something happened and when,
// not who. Deletes only in the removal: a browser over its storage quota refuses a transaction
// that writes, and removing is how a user makes room.
import type { IDBPDatabase } from 'idb';
import type { AuditEvent, GalleryDB } from './schema.ts';
import { writable, type Enqueue, type atomically } from './transaction.ts';

type Db = IDBPDatabase<GalleryDB>;
type Bounded = <T>(tx: Parameters<typeof atomically>[0], work: (enqueue: Enqueue) => Promise<T>) => Promise<T>;

/** events kept; older ones are deleted as new ones arrive */
export const AUDIT_MAX_EVENTS = 10_000;

/** The part of a readwrite transaction's `audit` store erasure needs. */
interface AuditWrites {
  index(name: 'bySubject'): { getAll(query: IDBKeyRange): Promise<AuditEvent[]>; getAllKeys(query: IDBKeyRange): Promise<number[]> };
  delete(key: number): Promise<void>;
}

/**
 * Inside a removal's transaction: deletes the events naming a subject in `range`; returns them
 * without the name, for `AuditLog.note` once the removal has committed.
 */
export async function scrubSubjects(audit: AuditWrites, range: IDBKeyRange, enqueue: Enqueue): Promise<AuditEvent[]> {
  const index = audit.index('bySubject');
  const [keys, events] = await Promise.all([index.getAllKeys(range), index.getAll(range)]);
  for (const key of keys) enqueue(audit.delete(key));
  return events.map(({ subject: _subject, ...rest }) => ({ ...rest, erased: true as const }));
}

export class AuditLog {
  private appended = 0;

  constructor(
    private readonly db: () => Promise<Db>,
    private readonly bounded: Bounded,
    private readonly maxEvents = AUDIT_MAX_EVENTS,
  ) {}

  /** Appends events; every so often trims the oldest beyond the bound. */
  async append(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const db = await this.db();
    const tx = writable(() => db.transaction('audit', 'readwrite'));
    const trim = (this.appended += events.length) >= Math.max(1, Math.floor(this.maxEvents / 100));
    if (trim) this.appended = 0;
    await this.bounded(tx, async (enqueue) => {
      for (const event of events) enqueue(tx.store.add(event));
      if (!trim) return;
      const excess = (await tx.store.count()) - this.maxEvents;
      if (excess <= 0) return;
      const oldest = await tx.store.getAllKeys(undefined, excess);
      enqueue(tx.store.delete(IDBKeyRange.bound(oldest[0]!, oldest.at(-1)!)));
    });
  }

  /**
   * Appends after the call it records has succeeded: best effort, never failing that call (a
   * full quota must not make a committed enroll look failed, nor stop recognitions).
   */
  note(events: readonly AuditEvent[]): Promise<void> {
    return this.append(events).catch(() => {});
  }

  /** Every event, oldest first (by time: an erased subject's events are written again after its removal). */
  async read(): Promise<AuditEvent[]> {
    const tx = (await this.db()).transaction('audit');
    return (await this.bounded(tx, () => tx.store.getAll())).sort((a, b) => a.at - b.at);
  }
}
