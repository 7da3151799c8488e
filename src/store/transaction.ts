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

/**
 * An IndexedDB failure as the engine's typed error: a full quota is STORAGE_FULL (3004), any
 * other refusal is UNAVAILABLE (3001) naming the browser's reason. EngineErrors pass through.
 */
export function storageError(error: unknown, what = 'the write'): unknown {
  if (error instanceof EngineError) return error;
  const name = error instanceof DOMException || error instanceof Error ? error.name : '';
  if (name === 'QuotaExceededError') return new EngineError('STORAGE_FULL');
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
): Promise<T> {
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
    await Promise.race([tx.done.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000))]);
    throw storageError(reasonOf(error, tx.error));
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
