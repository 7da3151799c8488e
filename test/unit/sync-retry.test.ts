// When the sync tries again (src/sync/retry.ts): about every second through a short outage, so
// browsers catch up about a second after the service returns; backing off to 30 s after that.
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_MS, retryDelay, streamRetryDelay } from '../../src/sync/retry.ts';

describe('retryDelay', () => {
  it('retries an unreachable service within a second for the first 30 tries, spread over the last quarter', () => {
    for (const failures of [1, 2, 5, 10, 30]) {
      expect(retryDelay(failures, true, 0)).toBe(750);
      expect(retryDelay(failures, true, 1)).toBe(1000);
    }
  });

  it('then doubles up to 30 s', () => {
    expect(retryDelay(31, true, 1)).toBe(2000);
    expect(retryDelay(32, true, 1)).toBe(4000);
    expect(retryDelay(40, true, 1)).toBe(MAX_RETRY_MS);
    expect(retryDelay(10_000, true, 1)).toBe(MAX_RETRY_MS);
  });

  it('retries a refusal (key, passphrase) every 30 s', () => {
    expect(retryDelay(1, false)).toBe(MAX_RETRY_MS);
  });

  it('the event stream reopens after 1, 2, 4 … 30 s (a successful run reopens it sooner)', () => {
    expect([1, 2, 3, 6, 20].map(streamRetryDelay)).toEqual([1000, 2000, 4000, 30_000, 30_000]);
  });
});
