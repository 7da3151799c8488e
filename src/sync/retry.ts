// When the sync tries again. A service restart or a deploy lasts seconds, so for the first
// half minute of an outage a browser retries about every second (the docs promise a catch-up
// within about a second of the service's return); a longer outage backs off to every 30 s so
// that a fleet of browsers does not keep hammering a service (or its proxy) that stays down.
// A refusal (key, passphrase) is not fixed by retrying soon: every 30 s. Pure.

export const MAX_RETRY_MS = 30_000;
/** failed attempts retried at the short interval before backing off */
const FAST_RETRIES = 30;
const FAST_RETRY_MS = 1000;

/**
 * The wait after the `failures`-th failure in a row (1-based). `unreachable`: the service
 * could not be reached or could not answer now. `random` (0–1) spreads a fleet's retries over
 * the last quarter of the wait, so browsers that lost the service together do not come back
 * in one burst.
 */
export function retryDelay(failures: number, unreachable: boolean, random = Math.random()): number {
  if (!unreachable) return MAX_RETRY_MS;
  const base = failures <= FAST_RETRIES ? FAST_RETRY_MS : Math.min(MAX_RETRY_MS, FAST_RETRY_MS * 2 ** (failures - FAST_RETRIES));
  return Math.round(base * (0.75 + 0.25 * random));
}

/** The event stream's wait before reopening after `failures` failed opens (a successful run reopens it at once). */
export function streamRetryDelay(failures: number): number {
  return Math.min(MAX_RETRY_MS, 500 * 2 ** Math.min(failures, 6));
}
