// Both shims at once: fetch (fetch, axios adapter 'fetch') and XMLHttpRequest (jQuery.ajax,
// axios' default adapter) answered by the engine for the Kairos base URL(s).
import type { ShimOptions } from './base-url.ts';
import { installFetchShim, type Shim } from './fetch-shim.ts';
import type { RequestHandler } from './router.ts';
import { installXhrShim } from './xhr-shim.ts';

export function installShims(handler: RequestHandler, options: ShimOptions = {}): Shim {
  const shims = [installFetchShim(handler, options)];
  if (typeof globalThis.XMLHttpRequest === 'function') shims.push(installXhrShim(handler, options));
  return {
    uninstall() {
      for (const s of shims.reverse()) s.uninstall();
    },
  };
}
