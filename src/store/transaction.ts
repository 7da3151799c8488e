// All-or-nothing IndexedDB work: one transaction per store request, aborted on any failure,
// and never left waiting: a transaction that neither completes nor aborts within its bound
// is aborted and reported (WebKit has been seen to leave a refused write pending forever).
import type { IDBPTransaction } from 'idb';
import { EngineError } from '../errors.ts';

/** Registers a request whose result is not needed; its failure still fails the work. */
export type Enqueue = (request: Promise<unknown>) => void;

/**
 * How long one transaction may take before it is aborted. Generous: a healthy transaction of
 * an endpoint takes milliseconds, a 100k-template import a few seconds on a slow phone.
 */
export const DEFAULT_TRANSACTION_TIMEOUT_MS = 20_000;

/** What navigator.storage.estimate() said when a write was refused for quota. */
export interface QuotaEstimate {
  usage: number;
  quota: number;
}

const size = (bytes: number) => (bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`);

/**
 * A QuotaExceededError as STORAGE_FULL (3004) naming the limit that was hit, judged by the
 * browser's own estimate: the site's quota when its usage plus the write reach it; otherwise a
 * limit the estimate does not show (a full disk; a private window, which keeps IndexedDB in
 * memory: Chromium refused a 700k-template gallery there at 1.45 GB of a 12 GB quota; a quota
 * set through DevTools). Without an estimate, the browser's word as it is.
 */
export function quotaError(estimate: QuotaEstimate | undefined, writeBytes: number): EngineError {
  if (!estimate) return new EngineError('STORAGE_FULL');
  const { usage, quota } = estimate;
  // IndexedDB's keys and overhead are not in writeBytes: within 10% (at least 50 MB) of the quota counts as reaching it
  if (usage + writeBytes >= quota - Math.max(quota * 0.1, 50e6)) {
    return new EngineError(
      'STORAGE_FULL',
      `storage is full: this site uses ${size(usage)} of the ${size(quota)} this browser allows it and the write needed about ${size(writeBytes)} more; nothing was stored; remove galleries or media results, or ask for persistent storage (navigator.storage.persist())`,
    );
  }
  return new EngineError(
    'STORAGE_FULL',
    `storage is full: the browser refused a write of about ${size(writeBytes)} as over its quota (QuotaExceededError), although its estimate says this site uses ${size(usage)} of ${size(quota)}: the limit hit is one the estimate does not show (a full disk, a private window's in-memory storage, or a quota set for the site); nothing was stored; free disk space, leave private browsing, remove galleries or media results, or ask for persistent storage (navigator.storage.persist())`,
  );
}

/** The browser's storage estimate, or undefined when it has none or takes over a second. */
export async function quotaEstimate(): Promise<QuotaEstimate | undefined> {
  if (typeof navigator === 'undefined' || !navigator.storage?.estimate) return undefined;
  try {
    const estimate = await withinTime(navigator.storage.estimate(), 1000, () => new Error('no estimate'));
    return estimate.usage !== undefined && estimate.quota !== undefined ? { usage: estimate.usage, quota: estimate.quota } : undefined;
  } catch {
    return undefined;
  }
}

function isQuotaError(error: unknown): boolean {
  return (error instanceof DOMException || error instanceof Error) && error.name === 'QuotaExceededError';
}

/**
 * An IndexedDB failure as the engine's typed error: a full quota is STORAGE_FULL (3004), any
 * other refusal is UNAVAILABLE (3001) naming the browser's reason. EngineErrors pass through.
 * (atomically() judges a QuotaExceededError by the storage estimate first: quotaError.)
 */
export function storageError(error: unknown, what = 'the write'): unknown {
  if (error instanceof EngineError) return error;
  if (isQuotaError(error)) return new EngineError('STORAGE_FULL');
  if (error instanceof DOMException) {
    const reason = error.message ? `${error.name}: ${error.message}` : error.name;
    return new EngineError('UNAVAILABLE', `temporarily unavailable: the browser's storage (IndexedDB) refused ${what} (${reason}); nothing was changed`);
  }
  return error;
}

/** The transaction ran past its bound: it was aborted, so nothing it wrote persists. */
export function storageTimeout(timeoutMs: number): EngineError {
  return new EngineError(
    'UNAVAILABLE',
    `temporarily unavailable: the browser's storage (IndexedDB) did not answer within ${Math.round(timeoutMs / 1000)} s; the request was aborted and nothing was changed`,
  );
}

/**
 * A readwrite transaction that may put: `open()`'s, or a second one when the first came back in
 * Firefox's 'cleanup' mode. Firefox makes the first readwrite transaction a connection opens
 * after one of its transactions was aborted for quota a cleanup one: it may delete (with quota
 * checks off, and frees space at its commit) but a put throws InvalidStateError ("a mutation
 * operation was attempted on a database that did not allow mutations"). A write that only
 * deletes (`deletesOnly`: undoing a refused write) keeps it; otherwise it commits empty and
 * the next one is an ordinary readwrite transaction.
 */
export function writable<Tx extends { readonly mode: string }>(open: () => Tx, deletesOnly = false): Tx {
  const tx = open();
  return tx.mode === 'cleanup' && !deletesOnly ? open() : tx;
}

/** Settles when the transaction has ended (committed or aborted), whatever its requests did. */
function endOf(tx: Pick<EventTarget, 'addEventListener'>): Promise<void> {
  return new Promise((resolve) => {
    for (const type of ['complete', 'abort']) tx.addEventListener(type, () => resolve(), { once: true });
  });
}

/**
 * Runs `work` in `tx` and resolves once the transaction has committed. If `work` throws, any
 * request fails or `timeoutMs` passes first, the transaction is aborted, so nothing `work`
 * wrote persists, and the error is rethrown as the engine's typed error (storageError).
 *
 * Inside `work`, await only requests of `tx`: IndexedDB commits a transaction as soon as no
 * request is pending, so awaiting anything else (a fetch, a timer) would commit half the work.
 */
export async function atomically<T>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tx: IDBPTransaction<any, any, 'readwrite' | 'readonly'>,
  work: (enqueue: Enqueue) => Promise<T>,
  timeoutMs: number = DEFAULT_TRANSACTION_TIMEOUT_MS,
  /** about how many bytes the work writes: weighed against the quota if the browser refuses it as over quota */
  writeBytes = 0,
): Promise<T> {
  // idb's tx.done rejects at a failed request's 'error' event, which comes before the
  // transaction's 'abort': Firefox marks the connection as over quota at the abort (writable)
  const ended = endOf(tx);
  // when work fails before awaiting it, nobody awaits tx.done: its rejection is expected, not unhandled
  tx.done.catch(() => {});
  const requests: Promise<unknown>[] = [];
  const enqueue: Enqueue = (request) => {
    // an aborted transaction fails every pending request; those must not surface as unhandled
    request.catch(() => {});
    requests.push(request);
  };
  const abort = () => {
    try {
      tx.abort();
    } catch {
      // already finished: a failed request aborts the transaction by itself
    }
  };
  const run = (async () => {
    const value = await work(enqueue);
    await Promise.all(requests);
    await tx.done;
    return value;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storageTimeout(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([run, timedOut]);
  } catch (error) {
    run.catch(() => {});
    abort();
    // a browser that never settles the transaction must not hold the caller: bounded wait
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1000))]);
    const reason = reasonOf(error, tx.error);
    throw isQuotaError(reason) ? quotaError(await quotaEstimate(), writeBytes) : storageError(reason);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * When the browser aborted the transaction itself, its error is the cause (a full quota is
 * reported there, at commit); the requests only fail after it (AbortError,
 * TransactionInactiveError). An explicit abort() leaves the transaction's error null.
 */
function reasonOf(error: unknown, transactionError: DOMException | null): unknown {
  if (error instanceof EngineError || !transactionError || transactionError.name === 'AbortError') return error;
  return transactionError;
}

/**
 * A promise that settles within `timeoutMs`: its own outcome, or `onTimeout()`'s error. For
 * IndexedDB steps outside a transaction (opening a database that another tab blocks).
 */
export function withinTime<T>(promise: Promise<T>, timeoutMs: number, onTimeout: () => unknown): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(onTimeout()), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}
