// All-or-nothing IndexedDB work: one transaction per store request, aborted on any failure.
import type { IDBPTransaction } from 'idb';

/** Registers a request whose result is not needed; its failure still fails the work. */
export type Enqueue = (request: Promise<unknown>) => void;

/**
 * Runs `work` in `tx` and resolves once the transaction has committed. If `work` throws or
 * any request fails, the transaction is aborted, so nothing `work` wrote persists, and the
 * first error is rethrown.
 *
 * Inside `work`, await only requests of `tx`: IndexedDB commits a transaction as soon as no
 * request is pending, so awaiting anything else (a fetch, a timer) would commit half the work.
 */
export async function atomically<T>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tx: IDBPTransaction<any, any, 'readwrite' | 'readonly'>,
  work: (enqueue: Enqueue) => Promise<T>,
): Promise<T> {
  const requests: Promise<unknown>[] = [];
  const enqueue: Enqueue = (request) => {
    // an aborted transaction fails every pending request; those must not surface as unhandled
    request.catch(() => {});
    requests.push(request);
  };
  try {
    const value = await work(enqueue);
    await Promise.all(requests);
    await tx.done;
    return value;
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // already finished: a failed request aborts the transaction by itself
    }
    await tx.done.catch(() => {});
    throw error;
  }
}
