// Earlier analyses of this screen: which media ids it posted, under what file name, and (for
// playback after a reload) the video itself. The engine keeps the results in its own
// IndexedDB database; this small one only remembers what the page needs to list and replay
// them (`${storageName}-demo-videos`). Deleting goes through DELETE /v2/media/{id} first.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

/** Videos larger than this are listed but not kept for replay (the engine keeps its own copy for processing). */
export const MAX_KEPT_VIDEO_BYTES = 64 * 1024 * 1024;

export interface HistoryEntry {
  id: string;
  file: string;
  /** epoch ms of the analysis */
  at: number;
  /** seconds */
  length: number;
  /** people found; undefined while the job had not finished when last seen */
  people?: number;
  /** the analysed video, when small enough to keep */
  video?: Blob;
}

interface HistoryDB extends DBSchema {
  analyses: { key: string; value: HistoryEntry; indexes: { at: number } };
}

export class AnalysisHistory {
  private constructor(private readonly db: IDBPDatabase<HistoryDB> | undefined) {}

  /** Opens the list; without IndexedDB (private modes) it is an empty list that forgets. */
  static async open(storageName: string): Promise<AnalysisHistory> {
    try {
      const db = await openDB<HistoryDB>(`${storageName}-demo-videos`, 1, {
        upgrade(db) {
          db.createObjectStore('analyses', { keyPath: 'id' }).createIndex('at', 'at');
        },
        blocking() {
          db.close();
        },
      });
      return new AnalysisHistory(db);
    } catch {
      return new AnalysisHistory(undefined);
    }
  }

  /** Newest first. */
  async list(): Promise<HistoryEntry[]> {
    if (!this.db) return [];
    return (await this.db.getAllFromIndex('analyses', 'at')).reverse();
  }

  async get(id: string): Promise<HistoryEntry | undefined> {
    return this.db?.get('analyses', id);
  }

  async put(entry: HistoryEntry): Promise<void> {
    const keep = entry.video && entry.video.size <= MAX_KEPT_VIDEO_BYTES ? entry : { ...entry, video: undefined };
    await this.db?.put('analyses', keep);
  }

  async remove(id: string): Promise<void> {
    await this.db?.delete('analyses', id);
  }
}
