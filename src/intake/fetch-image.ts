// Downloads an image URL with an injected fetch (the page's original network fetch, not a
// shim that may have replaced window.fetch), with a timeout and a byte limit.
import { readResponseBytes } from '../bytes.ts';
import { EngineError } from '../errors.ts';
import { errorText, raceAbort, withTimeout } from './abort.ts';
import { checkEncodedSize, FETCH_TIMEOUT_MS, MAX_ENCODED_BYTES } from './limits.ts';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface FetchImageOptions {
  fetch: FetchLike;
  /** the caller's cancellation; aborting rejects with the signal's reason, not an EngineError */
  signal?: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
}

export async function fetchImageBytes(url: string, opts: FetchImageOptions): Promise<Uint8Array> {
  const timeoutMs = opts.timeoutMs ?? FETCH_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? MAX_ENCODED_BYTES;
  const { signal, timedOut } = withTimeout(opts.signal, timeoutMs);
  const failed = (e: unknown): never => {
    if (e instanceof EngineError) throw e;
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (timedOut()) throw new EngineError('IMAGE_FETCH', `the image URL could not be fetched: no complete answer within ${timeoutMs / 1000} s`);
    throw new EngineError(
      'IMAGE_FETCH',
      `the image URL could not be fetched (network error, or the server does not allow cross-origin requests): ${errorText(e)}`,
    );
  };
  // Called unbound: window.fetch throws "Illegal invocation" when called as a method of `opts`.
  const fetchFn = opts.fetch;
  let res: Response;
  try {
    res = await raceAbort(fetchFn(url, { signal, redirect: 'follow' }), signal);
  } catch (e) {
    return failed(e);
  }
  if (!res.ok) {
    void res.body?.cancel().catch(() => {});
    const status = res.type === 'opaque' ? 'an opaque (no-CORS) response' : `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
    throw new EngineError('IMAGE_FETCH', `the image URL could not be fetched: the server answered ${status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    void res.body?.cancel().catch(() => {});
    checkEncodedSize(declared, maxBytes);
  }
  try {
    return await raceAbort(readBody(res, maxBytes), signal);
  } catch (e) {
    return failed(e);
  }
}

/** The body, stopped (5000, too large) as soon as it passes `maxBytes`. */
function readBody(res: Response, maxBytes: number): Promise<Uint8Array> {
  return readResponseBytes(res, (received) => {
    if (received > maxBytes) checkEncodedSize(received, maxBytes);
  });
}
