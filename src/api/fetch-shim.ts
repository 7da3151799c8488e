// Patches globalThis.fetch so requests to the Kairos base URL(s) are answered in-page by the
// engine with a real Response; every other request goes to the original fetch with the very
// same arguments. Catches fetch() and axios with `adapter: 'fetch'`; XMLHttpRequest clients
// (jQuery.ajax, axios' default adapter) need the XHR shim (xhr-shim.ts).
import { raceAbort } from '../intake/abort.ts';
import { baseUrlMatcher, type ShimOptions } from './base-url.ts';
import { keepForm } from './form-bodies.ts';
import type { RequestHandler } from './router.ts';

export interface Shim {
  /** restores what was there before (when another patch went on top, this one turns into a pass-through) */
  uninstall(): void;
}

type Fetch = typeof globalThis.fetch;

function urlOf(input: unknown): string {
  if (typeof Request !== 'undefined' && input instanceof Request) return input.url;
  return String(input);
}

/** Answers `request` from the handler, as fetch would: rejects with the signal's reason on abort. */
export function answerInPage(handler: RequestHandler, request: Request, path: string): Promise<Response> {
  if (request.signal.aborted) return Promise.reject(request.signal.reason);
  const url = request.url;
  const work = handler.handle(request, { path }).then((response) => {
    // a constructed Response has url ""; give it the request's, as a network response would have
    try {
      Object.defineProperty(response, 'url', { value: url, configurable: true });
    } catch {
      // leave it
    }
    return response;
  });
  return raceAbort(work, request.signal);
}

export function installFetchShim(handler: RequestHandler, options: ShimOptions = {}): Shim {
  const original: Fetch = globalThis.fetch;
  const match = baseUrlMatcher(options.baseUrls);
  let active = true;

  const shim = function fetch(this: unknown, ...args: Parameters<Fetch>): Promise<Response> {
    const [input, init] = args;
    let path: string | null = null;
    if (active) {
      try {
        path = match(urlOf(input));
      } catch {
        path = null;
      }
    }
    if (path === null) return Reflect.apply(original, globalThis, args) as Promise<Response>;
    let request: Request;
    try {
      request = new Request(input, init);
    } catch (e) {
      return Promise.reject(e); // what fetch does with arguments it cannot make a request of
    }
    keepForm(request, init?.body); // WebKit cannot read a FormData body with files back (form-bodies.ts)
    return answerInPage(handler, request, path);
  } as Fetch;

  globalThis.fetch = shim;
  return {
    uninstall() {
      active = false;
      if (globalThis.fetch === shim) globalThis.fetch = original;
    },
  };
}
