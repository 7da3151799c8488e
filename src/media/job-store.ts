// Media jobs, their sources and their results in IndexedDB (database `${storageName}-media`,
// apart from the recognition store's). Every key starts with the account's app_id, so one
// account never reaches another's media.
//
// Durability: a record is only ever replaced whole, inside one transaction. A job is written
// together with its source; a result together with the job's "complete" state (and the
// source's removal); a delete removes all three at once. A crash at any point leaves the job
// queued/processing with its source (it is restarted) or complete with its result — never a
// half-written result.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { CompleteMedia, JobRecord, SourceRecord } from './schema.ts';

export const MEDIA_DB_VERSION = 1;

type Key = [string, string];

interface MediaDB extends DBSchema {
  jobs: { key: Key; value: JobRecord };
  sources: { key: Key; value: SourceRecord };
  results: { key: Key; value: { appId: string; id: string; media: CompleteMedia } };
}

export function mediaDatabaseName(storageName: string): string {
  return `${storageName}-media`;
}

const STORES = ['jobs', 'sources', 'results'] as const;

export class JobStore {
  private constructor(private readonly db: IDBPDatabase<MediaDB>) {}

  static async open(storageName: string): Promise<JobStore> {
    const db = await openDB<MediaDB>(mediaDatabaseName(storageName), MEDIA_DB_VERSION, {
      upgrade(db) {
        for (const name of STORES) {
          if (!db.objectStoreNames.contains(name)) db.createObjectStore(name, { keyPath: ['appId', 'id'] });
        }
      },
      // another tab upgrading: step aside rather than block it
      blocking() {
        db.close();
      },
    });
    return new JobStore(db);
  }

  close(): void {
    this.db.close();
  }

  /** A new job and its source, atomically. */
  async create(job: JobRecord, source: SourceRecord): Promise<void> {
    const tx = this.db.transaction(['jobs', 'sources'], 'readwrite');
    await Promise.all([tx.objectStore('jobs').add(job), tx.objectStore('sources').put(source), tx.done]);
  }

  async job(appId: string, id: string): Promise<JobRecord | undefined> {
    return this.db.get('jobs', [appId, id]);
  }

  async source(appId: string, id: string): Promise<SourceRecord | undefined> {
    return this.db.get('sources', [appId, id]);
  }

  async result(appId: string, id: string): Promise<CompleteMedia | undefined> {
    return (await this.db.get('results', [appId, id]))?.media;
  }

  /** Jobs not finished (queued or interrupted while processing), oldest first. */
  async unfinished(): Promise<JobRecord[]> {
    const all = await this.db.getAll('jobs');
    return all.filter((j) => j.state === 'queued' || j.state === 'processing').sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq);
  }

  /**
   * Read-modify-write of one job in one transaction; `change` returns the new record or
   * undefined to leave it. Resolves to the stored record, undefined when the job is gone.
   */
  async updateJob(appId: string, id: string, change: (job: JobRecord) => JobRecord | undefined): Promise<JobRecord | undefined> {
    const tx = this.db.transaction('jobs', 'readwrite');
    const job = await tx.store.get([appId, id]);
    let out = job;
    if (job) {
      const next = change(job);
      if (next) {
        await tx.store.put(next);
        out = next;
      }
    }
    await tx.done;
    return out;
  }

  /** The downloaded bytes of a URL source, with what they turned out to be; false when the job is gone. */
  async saveDownloadedSource(appId: string, id: string, blob: Blob, kind: Pick<JobRecord, 'mimeType' | 'type'>): Promise<boolean> {
    const tx = this.db.transaction(['jobs', 'sources'], 'readwrite');
    const jobs = tx.objectStore('jobs');
    const job = await jobs.get([appId, id]);
    if (job) {
      await jobs.put({ ...job, ...kind });
      await tx.objectStore('sources').put({ appId, id, blob });
    }
    await tx.done;
    return job !== undefined;
  }

  /**
   * The result, the job's "complete" state and the source's removal, atomically. False (and
   * nothing written) when the job was deleted meanwhile: a cancelled job never comes back.
   */
  async complete(appId: string, id: string, media: CompleteMedia, finishedAt: number): Promise<boolean> {
    const tx = this.db.transaction(['jobs', 'sources', 'results'], 'readwrite');
    const jobs = tx.objectStore('jobs');
    const job = await jobs.get([appId, id]);
    if (job) {
      await jobs.put({ ...job, state: 'complete', finishedAt });
      await tx.objectStore('results').put({ appId, id, media });
      await tx.objectStore('sources').delete([appId, id]);
    }
    await tx.done;
    return job !== undefined;
  }

  /** The job failed for good: its state and reason; the source is dropped. */
  async fail(appId: string, id: string, error: { code: number; message: string }, finishedAt: number): Promise<boolean> {
    const tx = this.db.transaction(['jobs', 'sources'], 'readwrite');
    const jobs = tx.objectStore('jobs');
    const job = await jobs.get([appId, id]);
    if (job) {
      await jobs.put({ ...job, state: 'failed', error, finishedAt });
      await tx.objectStore('sources').delete([appId, id]);
    }
    await tx.done;
    return job !== undefined;
  }

  /** Removes the job, its source and its result at once; false when there was no such job. */
  async delete(appId: string, id: string): Promise<boolean> {
    const tx = this.db.transaction(['jobs', 'sources', 'results'], 'readwrite');
    const key: Key = [appId, id];
    const existed = (await tx.objectStore('jobs').getKey(key)) !== undefined;
    await Promise.all([
      tx.objectStore('jobs').delete(key),
      tx.objectStore('sources').delete(key),
      tx.objectStore('results').delete(key),
    ]);
    await tx.done;
    return existed;
  }

  /** How many records each store holds for an account (tests, diagnostics). */
  async counts(appId: string): Promise<Record<(typeof STORES)[number], number>> {
    const range = IDBKeyRange.bound([appId], [appId, []]);
    const [jobs, sources, results] = await Promise.all(STORES.map((s) => this.db.count(s, range)));
    return { jobs: jobs!, sources: sources!, results: results! };
  }
}
