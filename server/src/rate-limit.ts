// Requests per app per minute, counted only once the request is authenticated: a limit keyed
// by a claimed app_id before the key is checked would let anyone exhaust another app's budget
// by sending its app_id with a wrong key. (Before authentication the limit is per client
// address — app.ts — which also bounds the scrypt work an attacker can ask for.)
// AppRateLimit is in memory, per process: N processes allow N × max. GlobalRateLimit counts in
// PostgreSQL for every process together (one upsert per request: ~1.4 ms at p50, measured in
// docs/sync.md), so it is opt-in.
import type { Pool } from 'pg';
import { SyncError } from './errors.ts';

export class AppRateLimit {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts one request of `appId`; RATE_LIMITED past the window's budget. */
  take(appId: string, now = Date.now()): void {
    let window = this.windows.get(appId);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(appId, window);
    }
    window.count++;
    if (window.count > this.max) {
      const seconds = Math.ceil((window.start + this.windowMs - now) / 1000);
      throw new SyncError('RATE_LIMITED', `too many requests for this app (${this.max} a minute); retry in ${seconds} s`);
    }
  }
}

/** Requests per app per minute across every process of a deployment, counted in PostgreSQL. */
export class GlobalRateLimit {
  constructor(
    private readonly pool: Pool,
    private readonly max: number,
  ) {}

  /** Counts one request of `appId`; RATE_LIMITED past the minute's budget. */
  async take(appId: string): Promise<void> {
    const { rows } = await this.pool.query<{ count: string; window_start: string; retry: number }>(
      `insert into rate_windows (app_id, window_start, count) values ($1, floor(extract(epoch from now()) / 60)::bigint, 1)
       on conflict (app_id, window_start) do update set count = rate_windows.count + 1
       returning count, window_start, 60 - floor(extract(epoch from now()))::bigint % 60 as retry`,
      [appId],
    );
    const row = rows[0]!;
    // the app's first request of a minute clears its older windows
    if (row.count === '1') await this.pool.query('delete from rate_windows where app_id = $1 and window_start < $2', [appId, row.window_start]);
    if (Number(row.count) > this.max) throw new SyncError('RATE_LIMITED', `too many requests for this app across the service (${this.max} a minute); retry in ${row.retry} s`);
  }
}
