// A promise settled from outside: the page's requests wait on the engine's start.

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((ok, fail) => ((resolve = ok), (reject = fail)));
  // a start that fails is reported by the page itself; a request waiting on it gets the reason
  promise.catch(() => {});
  return { promise, resolve, reject };
}
