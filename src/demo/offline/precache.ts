// Shared by the build (tools/vite-offline.ts), the service worker and the page: the shape
// of the precache manifest, cache naming, which requests the worker answers, and the texts
// shown in the footer. Pure: no DOM, no service-worker globals, no Node.

/** One file of the build the service worker stores. */
export interface PrecacheEntry {
  /**
   * In the build's manifest: the path relative to the app's root (where sw.js and index.html
   * are), e.g. "index.html", "assets/index-D38Qryik.js", "models/iris.onnx", so the app works
   * under any base path; in the service worker, after atScope(): the absolute path on the server.
   */
  url: string;
  bytes: number;
  /** hex SHA-256 of the content: checked before storing, and reused across versions */
  sha256: string;
}

export interface PrecacheManifest {
  /** hash of every entry's url and sha256: names the cache */
  version: string;
  /** total bytes of all entries */
  bytes: number;
  entries: PrecacheEntry[];
}

/** Written next to sw.js for people and tools; the worker has its own copy inlined. */
export const MANIFEST_FILE = 'offline-manifest.json';
export const SERVICE_WORKER_FILE = 'sw.js';
export const CACHE_PREFIX = 'faces-offline-';
/** service worker → pages: progress, ready, error */
export const CHANNEL_NAME = 'faces-offline';
/** header on every stored response: the content's SHA-256, so an update can keep unchanged files */
export const SHA_HEADER = 'x-offline-sha256';

/**
 * One cache per version and app folder: two copies of the app under different paths of one
 * origin (GitHub Pages serves every project of a user from one origin) never delete each
 * other's caches. At the site root the name is the prefix and the version.
 */
const scoped = (root: string) => CACHE_PREFIX + (root === '/' ? '' : root);
export const cacheName = (version: string, root = '/'): string => scoped(root) + version;
/** A cache of this app at `root` (any version); versions are hex, so a deeper folder's caches never match. */
export const isOfflineCache = (name: string, root = '/'): boolean => name.startsWith(scoped(root)) && !name.slice(scoped(root).length).includes('/');

/** The headers that keep a page, its workers and ORT's pthread workers cross-origin isolated. */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  wasm: 'application/wasm',
  onnx: 'application/octet-stream',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  ico: 'image/x-icon',
  txt: 'text/plain; charset=utf-8',
};

/** Content type by extension (used when the server sent none; .wasm must be application/wasm for streaming compile). */
export function contentTypeFor(url: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/** Build output that is never precached: the worker itself, its manifest, source maps. */
export function isPrecached(path: string): boolean {
  const p = path.replace(/^\/+/, '');
  return p !== SERVICE_WORKER_FILE && p !== MANIFEST_FILE && !p.endsWith('.map') && !p.split('/').some((s) => s.startsWith('.'));
}

/**
 * The large files only the vision worker fetches (models, ORT's WASM binary). Install stores
 * everything else (the app shell) so the page is controlled within moments on a first visit;
 * these are stored as the worker first fetches them through the service worker, and the rest of
 * them once the page's warm-up is done.
 */
export function isDeferred(path: string): boolean {
  return /\.(onnx|wasm)$/i.test(path);
}

/** The request facts routing needs (a plain object so it can be tested without a browser). */
export interface RequestFacts {
  method: string;
  /** absolute URL */
  url: string;
  /** Request.mode: "navigate" for page loads */
  mode: string;
  /** a Range header is present (media elements seeking in a video) */
  range: boolean;
}

export type Route =
  /** answer from the cache under this key (network if it is missing) */
  | { kind: 'cache'; key: string }
  /** a page load of a path that is not a file of the build: network, else the cached app shell */
  | { kind: 'navigate'; fallback: string }
  /** not ours: the browser handles it as if there were no service worker */
  | { kind: 'pass' };

/** The page's file, relative to the app's root. */
export const APP_SHELL = 'index.html';

/**
 * The manifest with each url made an absolute path under `root` (the service worker's own
 * folder, e.g. "/" or "/some/sub/path/"): what requests and the Cache API are matched on.
 */
export function atScope(manifest: PrecacheManifest, root: string): PrecacheManifest {
  const base = new URL(root, 'http://x');
  return { ...manifest, entries: manifest.entries.map((e) => ({ ...e, url: new URL(e.url, base).pathname })) };
}

/**
 * What the worker does with a request. Only same-origin GETs of listed files (and page loads)
 * are answered; range requests, POSTs, other origins, blob:/data: and anything unlisted pass.
 * `listed` holds absolute paths (atScope), `root` is the app's folder on the server.
 */
export function routeRequest(req: RequestFacts, origin: string, listed: ReadonlySet<string>, root = '/'): Route {
  if (req.method !== 'GET' || req.range) return { kind: 'pass' };
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return { kind: 'pass' };
  }
  if (url.origin !== origin) return { kind: 'pass' };
  const shell = root + APP_SHELL;
  const path = url.pathname === root ? shell : url.pathname;
  if (req.mode === 'navigate') {
    // the app is one page: its query (?backend=…) does not change the file
    if (listed.has(path)) return { kind: 'cache', key: path };
    // only page loads inside the app's folder are the app's
    return listed.has(shell) && path.startsWith(root) ? { kind: 'navigate', fallback: shell } : { kind: 'pass' };
  }
  // a query makes it a different resource (cache-busting, API-style calls): not ours
  if (url.search !== '' || !listed.has(path)) return { kind: 'pass' };
  return { kind: 'cache', key: path };
}

/** Messages the service worker broadcasts on CHANNEL_NAME. */
export type OfflineMessage =
  | { type: 'progress'; version: string; done: number; total: number; bytesDone: number; bytesTotal: number }
  | { type: 'ready'; version: string; files: number; bytes: number; ms: number }
  /** the network went away before every file was stored: what is stored works offline */
  | { type: 'partial'; version: string; done: number; total: number; bytesDone: number; bytesTotal: number }
  | { type: 'error'; version: string; message: string };

/** Messages a page posts to the active worker. */
export type OfflineRequest = { type: 'status' };

export function formatMB(bytes: number): string {
  const mb = bytes / 1e6;
  return mb >= 10 ? `${Math.round(mb)} MB` : `${mb.toFixed(1)} MB`;
}

/** Footer text for a worker message. */
export function describeOffline(m: OfflineMessage): string {
  switch (m.type) {
    case 'progress':
      return `Preparing offline use… ${m.done}/${m.total} files, ${formatMB(m.bytesDone)} of ${formatMB(m.bytesTotal)}`;
    case 'ready':
      return `Ready to work offline (${m.files} files, ${formatMB(m.bytes)} cached)`;
    case 'partial':
      return `Works offline with what is stored (${m.done}/${m.total} files, ${formatMB(m.bytesDone)} of ${formatMB(m.bytesTotal)}); the rest is stored when back online`;
    case 'error':
      return `Offline use is not available: ${m.message}`;
  }
}

export function isOfflineMessage(x: unknown): x is OfflineMessage {
  const t = (x as { type?: unknown } | null)?.type;
  return t === 'progress' || t === 'ready' || t === 'partial' || t === 'error';
}
