// Which URLs the shims answer in-page: those under one of the configured base URLs.

/** What existing Kairos clients call. */
export const DEFAULT_BASE_URLS: readonly string[] = ['https://api.kairos.com'];

export interface ShimOptions {
  /** base URLs answered by the engine (origin plus an optional path prefix); default https://api.kairos.com */
  baseUrls?: readonly string[];
}

interface Base {
  origin: string;
  /** path prefix without a trailing slash ("" for the origin's root) */
  prefix: string;
}

function parseBase(url: string): Base {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`base URL must be http(s): ${url}`);
  return { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
}

/**
 * A matcher: the route path ("/detect") of a URL under one of the bases, or null for any other
 * URL (which the shims pass through untouched). Relative URLs resolve against the page.
 */
export function baseUrlMatcher(baseUrls: readonly string[] = DEFAULT_BASE_URLS): (url: string | URL) => string | null {
  const bases = baseUrls.map(parseBase);
  return (input) => {
    let u: URL;
    try {
      u = new URL(String(input), globalThis.location?.href);
    } catch {
      return null;
    }
    for (const b of bases) {
      if (u.origin !== b.origin) continue;
      if (b.prefix === '') return u.pathname || '/';
      if (u.pathname === b.prefix) return '/';
      if (u.pathname.startsWith(b.prefix + '/')) return u.pathname.slice(b.prefix.length);
    }
    return null;
  };
}
