// Media jobs, their sources and their results in IndexedDB (database `${storageName}-media`,
// apart from the recognition store's). Every key starts with the account's app_id, so one
// account never reaches another's media.
//
// Durability: a record is only ever replaced whole, inside one transaction. A job is written
// together with its source; a result together with the job's "complete" state (and the
// source's removal); a delete removes all three at once. A crash at any point leaves the job
// queued/processing with its source (it is restarted) or complete with its result — never a
// half-written result. Every transaction is bounded (src/store/transaction.ts): one the
// browser never settles is aborted and reported, never left waiting.
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction } from 'idb';
import { EngineError } from '../errors.ts';
import { DEFAULT_TRANSACTION_TIMEOUT_MS, atomically, withinTime, writable, type Enqueue } from '../store/transaction.ts';
import type { CompleteMedia, JobRecord, SourceRecord, StoredSourceRecord } from './schema.ts';

export const MEDIA_DB_VERSION = 1;

type Key = [string, string];

interface MediaDB extends DBSchema {
  jobs: { key: Key; value: JobRecord };
  sources: { key: Key; value: StoredSourceRecord };
  results: { key: Key; value: { appId: string; id: string; media: CompleteMedia } };
}

export function mediaDatabaseName(storageName: string): string {
  return `${storageName}-media`;
}

const STORES = ['jobs', 'sources', 'results'] as const;

/** A source as stored: the Blob's bytes read out first (it cannot be awaited inside a transaction). */
async function storedSource(source: SourceRecord): Promise<StoredSourceRecord> {
  const { blob, ...rest } = source;
  return blob ? { ...rest, bytes: await blob.arrayBuffer(), type: blob.type } : rest;
}

function sourceOf({ bytes, type, blob, ...rest }: StoredSourceRecord): SourceRecord {
  if (bytes) return { ...rest, blob: new Blob([bytes], { type: type ?? '' }) };
  return blob ? { ...rest, blob } : rest;
}

export class JobStore {
  private constructor(
    private readonly db: IDBPDatabase<MediaDB>,
    private readonly timeoutMs: number,
  ) {}

  static async open(storageName: string, timeoutMs = DEFAULT_TRANSACTION_TIMEOUT_MS): Promise<JobStore> {
    let store: JobStore | undefined;
    const opening = openDB<MediaDB>(mediaDatabaseName(storageName), MEDIA_DB_VERSION, {
      upgrade(db) {
        for (const name of STORES) {
          if (!db.objectStoreNames.contains(name)) db.createObjectStore(name, { keyPath: ['appId', 'id'] });
        }
      },
      // another tab upgrading: step aside rather than block it
      blocking() {
        store?.close();
      },
    });
    const db = await withinTime(opening, timeoutMs, () => {
      void opening.then((late) => late.close(), () => {});
      return new EngineError('UNAVAILABLE', `temporarily unavailable: the media storage (IndexedDB) did not open within ${Math.round(timeoutMs / 1000)} s`);
    });
    store = new JobStore(db, timeoutMs);
    return store;
  }

  close(): void {
    this.db.close();
  }

  /** A new job and its source, atomically. */
  async create(job: JobRecord, source: SourceRecord): Promise<void> {
    const stored = await storedSource(source);
    const tx = writable(() => this.db.transaction(['jobs', 'sources'], 'readwrite'));
    await atomically(
      tx,
      async (enqueue) => {
        enqueue(tx.objectStore('jobs').add(job));
        enqueue(tx.objectStore('sources').put(stored));
      },
      this.timeoutMs,
    );
  }

  async job(appId: string, id: string): Promise<JobRecord | undefined> {
    const tx = this.db.transaction('jobs');
    return atomically(tx, () => tx.store.get([appId, id]), this.timeoutMs);
  }

  async source(appId: string, id: string): Promise<SourceRecord | undefined> {
    const tx = this.db.transaction('sources');
    const stored = await atomically(tx, () => tx.store.get([appId, id]), this.timeoutMs);
    return stored && sourceOf(stored);
  }

  async result(appId: string, id: string): Promise<CompleteMedia | undefined> {
    const tx = this.db.transaction('results');
    return (await atomically(tx, () => tx.store.get([appId, id]), this.timeoutMs))?.media;
  }

  /** Jobs not finished (queued or interrupted while processing), oldest first. */
  async unfinished(): Promise<JobRecord[]> {
    const tx = this.db.transaction('jobs');
    const all = await atomically(tx, () => tx.store.getAll(), this.timeoutMs);
    return all.filter((j) => j.state === 'queued' || j.state === 'processing').sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq);
  }

  /**
   * Read-modify-write of one job in one transaction; `change` returns the new record or
   * undefined to leave it. Resolves to the stored record, undefined when the job is gone.
   */
  async updateJob(appId: string, id: string, change: (job: JobRecord) => JobRecord | undefined): Promise<JobRecord | undefined> {
    const tx = writable(() => this.db.transaction('jobs', 'readwrite'));
    return atomically(
      tx,
      async () => {
        const job = await tx.store.get([appId, id]);
        const next = job && change(job);
        if (!next) return job;
        await tx.store.put(next);
        return next;
      },
      this.timeoutMs,
    );
  }

  /** The downloaded bytes of a URL source, with what they turned out to be; false when the job is gone. */
  async saveDownloadedSource(appId: string, id: string, blob: Blob, kind: Pick<JobRecord, 'mimeType' | 'type'>): Promise<boolean> {
    const stored = await storedSource({ appId, id, blob });
    return this.rewriteJob(appId, id, (job, tx, enqueue) => {
      enqueue(tx.objectStore('jobs').put({ ...job, ...kind }));
      enqueue(tx.objectStore('sources').put(stored));
    });
  }

  /**
   * The result, the job's "complete" state and the source's removal, atomically. False (and
   * nothing written) when the job was deleted meanwhile: a cancelled job never comes back.
   */
  async complete(appId: string, id: string, media: CompleteMedia, finishedAt: number): Promise<boolean> {
    return this.rewriteJob(appId, id, (job, tx, enqueue) => {
      enqueue(tx.objectStore('jobs').put({ ...job, state: 'complete', finishedAt }));
      enqueue(tx.objectStore('results').put({ appId, id, media }));
      enqueue(tx.objectStore('sources').delete([appId, id]));
    });
  }

  /** The job failed for good: its state and reason; the source is dropped. */
  async fail(appId: string, id: string, error: { code: number; message: string }, finishedAt: number): Promise<boolean> {
    return this.rewriteJob(appId, id, (job, tx, enqueue) => {
      enqueue(tx.objectStore('jobs').put({ ...job, state: 'failed', error, finishedAt }));
      enqueue(tx.objectStore('sources').delete([appId, id]));
    });
  }

  /** One bounded transaction: `write` runs only if the job still exists; false when it is gone. */
  private rewriteJob(
    appId: string,
    id: string,
    write: (job: JobRecord, tx: IDBPTransaction<MediaDB, typeof STORES, 'readwrite'>, enqueue: Enqueue) => void,
  ): Promise<boolean> {
    const tx = writable(() => this.db.transaction(STORES, 'readwrite'));
    return atomically(
      tx,
      async (enqueue) => {
        const job = await tx.objectStore('jobs').get([appId, id]);
        if (!job) return false;
        write(job, tx, enqueue);
        return true;
      },
      this.timeoutMs,
    );
  }

  /** Removes the job, its source and its result at once; false when there was no such job. */
  async delete(appId: string, id: string): Promise<boolean> {
    const tx = writable(() => this.db.transaction(['jobs', 'sources', 'results'], 'readwrite'));
    const key: Key = [appId, id];
    return atomically(
      tx,
      async (enqueue) => {
        const existed = (await tx.objectStore('jobs').getKey(key)) !== undefined;
        for (const name of STORES) enqueue(tx.objectStore(name).delete(key));
        return existed;
      },
      this.timeoutMs,
    );
  }

  /** How many records each store holds for an account (tests, diagnostics). */
  async counts(appId: string): Promise<Record<(typeof STORES)[number], number>> {
    const range = IDBKeyRange.bound([appId], [appId, []]);
    const tx = this.db.transaction(STORES);
    const [jobs, sources, results] = await atomically(tx, () => Promise.all(STORES.map((s) => tx.objectStore(s).count(range))), this.timeoutMs);
    return { jobs: jobs!, sources: sources!, results: results! };
  }
}
