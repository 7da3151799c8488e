// Requests per app per minute, counted only once the request is authenticated: a limit keyed
// by a claimed app_id before the key is checked would let anyone exhaust another app's budget
// by sending its app_id with a wrong key. (Before authentication the limit is per client
// address — app.ts — which also bounds the scrypt work an attacker can ask for.)
// In memory, per process: N processes allow N × max; docs/sync.md says so.
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
