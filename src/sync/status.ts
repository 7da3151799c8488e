// engine.syncStatus(): what the sync is doing, as plain data, plus a listener feed.
import { z } from 'zod';
import type { SyncFailure } from './errors.ts';

/** What the current (or last) run is doing: a new device's bootstrap shows its pull this way. */
export const SyncProgressSchema = z.object({
  /** idle between runs (the numbers are then the last pull's) */
  phase: z.enum(['idle', 'pushing', 'pulling']),
  /** changes of the service's log (enrolls, removals) this pull has received and applied */
  pulled: z.number().int().nonnegative(),
  /** `pulled` plus what the service said is left after them; null until it said (an older service never does) */
  total: z.number().int().nonnegative().nullable(),
});
export type SyncProgress = z.infer<typeof SyncProgressSchema>;

export interface SyncStatus {
  enabled: boolean;
  /** connecting: first contact; syncing: pushing or pulling; idle: up to date; offline: retrying; error: needs attention (see error) */
  state: 'connecting' | 'syncing' | 'idle' | 'offline' | 'error' | 'closed';
  /** local changes waiting for the service */
  pending: number;
  /** when this browser last finished a full push + pull (epoch ms), across reloads */
  lastSyncedAt: number | null;
  /** the service's sequence number this browser has applied up to */
  cursor: string;
  /** the run's progress: how far a pull (a bootstrap's, say) has come */
  progress: SyncProgress;
  /** the live event stream from the service is open (nudges arrive within a second) */
  live: boolean;
  /** galleries on the service, with whether each is end-to-end encrypted */
  galleries: { gallery: string; encrypted: boolean }[];
  /** the failure that stopped the last attempt, if any */
  error: SyncFailure | null;
  /** changes the service refused or pulled templates not imported, most recent last (at most 20) */
  warnings: SyncFailure[];
}

export const DISABLED_STATUS: SyncStatus = {
  enabled: false,
  state: 'idle',
  pending: 0,
  lastSyncedAt: null,
  cursor: '0',
  progress: { phase: 'idle', pulled: 0, total: null },
  live: false,
  galleries: [],
  error: null,
  warnings: [],
};

export type SyncStatusListener = (status: SyncStatus) => void;

export class StatusFeed {
  private current: SyncStatus = { ...DISABLED_STATUS, enabled: true, state: 'connecting' };
  private readonly listeners = new Set<SyncStatusListener>();

  get(): SyncStatus {
    return this.current;
  }

  update(patch: Partial<SyncStatus>): void {
    this.current = { ...this.current, ...patch };
    for (const listener of this.listeners) {
      try {
        listener(this.current);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  warn(failure: SyncFailure): void {
    this.update({ warnings: [...this.current.warnings, failure].slice(-20) });
  }

  subscribe(listener: SyncStatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
