// The demo's service worker, built by tools/vite-offline.ts into /sw.js (a classic script,
// with the precache manifest of that build inlined as self.__PRECACHE__).
//
// install  — checks the whole app fits, then stores the app shell (page, hashed assets incl. the
//            vision worker, ORT's .mjs) in a cache named after the manifest's hash, plus every
//            file whose SHA-256 is unchanged from the previous version's cache (copied, not
//            downloaded). Models and ORT's .wasm follow (fetch, message). Every file is checked
//            against its SHA-256 before it is stored, and the stored copy carries COOP/COEP/CORP
//            so pages and workers served from it stay cross-origin isolated (ORT's threads).
// activate — deletes older caches of this app and claims open pages.
// fetch    — cache-first for listed same-origin GETs, storing a listed file on its first
//            fetch (the vision worker's models on a first visit); page loads fall back to the
//            cached index.html; everything else (range requests, user media, blob:, other
//            origins) is left to the browser.
// message  — "status": stores every file still missing (the page asks after its warm-up).
import {
  CHANNEL_NAME,
  ISOLATION_HEADERS,
  SHA_HEADER,
  atScope,
  cacheName,
  contentTypeFor,
  isDeferred,
  isOfflineCache,
  routeRequest,
  type OfflineMessage,
  type PrecacheEntry,
  type PrecacheManifest,
} from './precache.ts';

const sw = globalThis as unknown as ServiceWorkerGlobalScope & { __PRECACHE__?: PrecacheManifest };
/** the app's folder on the server ("/" at a site root, "/some/sub/path/" under a base path): sw.js sits there */
const ROOT = new URL('./', sw.location.href).pathname;
// the build lists files relative to the app's root; requests and the cache use absolute paths
const manifest: PrecacheManifest = atScope(sw.__PRECACHE__ ?? { version: 'missing', bytes: 0, entries: [] }, ROOT);
const CACHE = cacheName(manifest.version, ROOT);
const entries = new Map(manifest.entries.map((e) => [e.url, e]));
const listed = new Set(entries.keys());
const channel = new BroadcastChannel(CHANNEL_NAME);
/** parallel downloads while precaching (each holds one file in memory to hash it) */
const PARALLEL = 4;

const post = (m: OfflineMessage) => channel.postMessage(m);
/** how long the last fill took (reported with "ready") */
let fillMs = 0;
const postReady = () =>
  post({ type: 'ready', version: manifest.version, files: manifest.entries.length, bytes: manifest.bytes, ms: fillMs });
const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

class OfflineError extends Error {
  /** true when the network is gone (not a changed file or a full disk): what is stored still works */
  network = false;
  /** the browser would not store more: a partial cache is given back (see giveUp) */
  quota = false;
}

const hex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');

/** The response as stored: exact bytes, its type, isolation headers, its hash. */
function stored(entry: PrecacheEntry, body: ArrayBuffer, type: string | null): Response {
  const headers = new Headers(ISOLATION_HEADERS);
  headers.set('Content-Type', type || contentTypeFor(entry.url));
  headers.set('Content-Length', String(body.byteLength));
  headers.set(SHA_HEADER, entry.sha256);
  return new Response(body, { status: 200, statusText: 'OK', headers });
}

/** A copy of this exact file (same SHA-256) in the cache of an earlier version, if any. */
async function fromOlderCache(entry: PrecacheEntry, older: readonly Cache[]): Promise<Response | undefined> {
  for (const cache of older) {
    const hit = await cache.match(entry.url);
    if (hit && hit.headers.get(SHA_HEADER) === entry.sha256) return hit;
  }
  return undefined;
}

async function download(entry: PrecacheEntry): Promise<Response> {
  let response: Response;
  try {
    // revalidates with the server: a file fetched by this page moments ago costs a 304
    response = await fetch(entry.url, { cache: 'no-cache', credentials: 'same-origin' });
  } catch {
    const e = new OfflineError(`could not download ${entry.url} (network error)`);
    e.network = true;
    throw e;
  }
  if (!response.ok) throw new OfflineError(`could not download ${entry.url} (HTTP ${response.status})`);
  const body = await response.arrayBuffer();
  const sha = hex(await crypto.subtle.digest('SHA-256', body));
  if (body.byteLength !== entry.bytes || sha !== entry.sha256) {
    throw new OfflineError(`${entry.url} on the server differs from this version of the app; reload the page`);
  }
  return stored(entry, body, response.headers.get('Content-Type'));
}

const isQuotaError = (e: unknown) => e instanceof DOMException && e.name === 'QuotaExceededError';

/** Downloads in progress, by URL: a worker's fetch and the background fill never fetch a file twice. */
const inflight = new Map<string, Promise<Response>>();

/** Stores one file (a copy from an older version's cache when unchanged, else a verified download); resolves to a response for the caller. */
function obtain(entry: PrecacheEntry, cache: Cache, older: readonly Cache[] = []): Promise<Response> {
  let pending = inflight.get(entry.url);
  if (!pending) {
    pending = (async () => {
      const response = (await fromOlderCache(entry, older)) ?? (await download(entry));
      try {
        await cache.put(entry.url, response.clone());
      } catch (err) {
        if (isQuotaError(err)) {
          const e = new OfflineError(`not enough storage: the browser refused to store ${entry.url} (${mb(entry.bytes)}). Free up disk space, then reload.`);
          e.quota = true;
          throw e;
        }
        throw err;
      }
      return response;
    })().finally(() => inflight.delete(entry.url));
    inflight.set(entry.url, pending);
  }
  return pending.then((r) => r.clone());
}

async function olderCaches(): Promise<Cache[]> {
  const names = (await caches.keys()).filter((n) => isOfflineCache(n, ROOT) && n !== CACHE);
  return Promise.all(names.map((n) => caches.open(n)));
}

/**
 * Fills the current cache with the listed files it lacks — all of them, or only the app shell
 * (`shellOnly`, at install) — broadcasting progress over the whole manifest. With `checkQuota`,
 * first makes sure the whole app fits, so a browser without room keeps nothing.
 */
async function fill({ shellOnly = false, checkQuota = false } = {}): Promise<void> {
  const started = performance.now();
  const cache = await caches.open(CACHE);
  const present = new Set((await cache.keys()).map((r) => new URL(r.url).pathname));
  const missing = manifest.entries.filter((e) => !present.has(e.url));
  const total = manifest.entries.length;
  let done = total - missing.length;
  let bytesDone = manifest.entries.filter((e) => present.has(e.url)).reduce((s, e) => s + e.bytes, 0);
  const progress = () =>
    post({ type: 'progress', version: manifest.version, done, total, bytesDone, bytesTotal: manifest.bytes });

  if (missing.length > 0) {
    const older = await olderCaches();
    // copies from an older cache cost no new space and no download: always taken now (an
    // update keeps every unchanged model even before the background fill runs)
    const reusable = new Set<string>();
    for (const e of missing) if (await fromOlderCache(e, older)) reusable.add(e.url);
    if (checkQuota) {
      const needed = missing.filter((e) => !reusable.has(e.url)).reduce((s, e) => s + e.bytes, 0);
      const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
      if (estimate?.quota !== undefined && estimate.usage !== undefined) {
        const free = estimate.quota - estimate.usage;
        if (free < needed) {
          throw new OfflineError(
            `not enough storage: offline use needs ${mb(needed)}, the browser allows this site ${mb(free)} more. Free up disk space or leave private browsing, then reload.`,
          );
        }
      }
    }
    progress();
    const queue = missing.filter((e) => !shellOnly || !isDeferred(e.url) || reusable.has(e.url));
    let failed = false;
    const worker = async () => {
      for (let e = queue.shift(); e && !failed; e = queue.shift()) {
        await obtain(e, cache, older);
        if (failed) return;
        done += 1;
        bytesDone += e.bytes;
        progress();
      }
    };
    const stopOthers = (e: unknown) => {
      // the first failure is the one reported: the other downloads stop without a word
      failed = true;
      throw e;
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, () => worker().catch(stopOthers)));
  }
  if (!shellOnly) fillMs = Math.round(performance.now() - started);
}

/** Every listed file is in the current cache. */
async function complete(): Promise<boolean> {
  const cache = await caches.open(CACHE);
  return (await cache.keys()).length >= manifest.entries.length;
}

async function reported(task: Promise<void>): Promise<void> {
  try {
    await task;
  } catch (e) {
    const message = e instanceof OfflineError ? e.message : `${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
    post({ type: 'error', version: manifest.version, message });
    throw e;
  }
}

/**
 * The browser will not hold the whole app: say so, and leave nothing behind (a cache that
 * cannot hold the models serves nobody offline). Open pages keep working from the network.
 */
async function giveUp(e: OfflineError): Promise<void> {
  post({ type: 'error', version: manifest.version, message: e.message });
  await caches.delete(CACHE);
  await sw.registration.unregister();
}

/** After a failed background fill: offline with what is stored, nothing when the disk is full, or the error (a changed file). */
async function reportPartial(e: unknown): Promise<void> {
  if (e instanceof OfflineError && e.quota) return giveUp(e);
  if (!(e instanceof OfflineError && e.network)) return reported(Promise.reject(e));
  const cache = await caches.open(CACHE);
  const present = new Set((await cache.keys()).map((r) => new URL(r.url).pathname));
  const stored = manifest.entries.filter((x) => present.has(x.url));
  post({
    type: 'partial',
    version: manifest.version,
    done: stored.length,
    total: manifest.entries.length,
    bytesDone: stored.reduce((s, x) => s + x.bytes, 0),
    bytesTotal: manifest.bytes,
  });
}

sw.addEventListener('install', (event) => {
  // Only the app shell (and unchanged files of an older version) here, so a first visit is
  // controlled within moments and the vision worker it then starts fetches its models and
  // WASM through this worker, which stores them as they pass (offline right after the first
  // warm-up). The rest follows when the page asks (after its warm-up). A failed install keeps
  // the previous version (if any) in charge, and the next page load tries again.
  event.waitUntil(
    (async () => {
      const existed = await caches.has(CACHE);
      try {
        await reported(fill({ shellOnly: true, checkQuota: true }));
      } catch (e) {
        // a cache this install created serves nobody: give the space back
        if (!existed) await caches.delete(CACHE);
        throw e;
      }
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(names.filter((n) => isOfflineCache(n, ROOT) && n !== CACHE).map((n) => caches.delete(n)));
      await sw.clients.claim();
      // only now: pages told "ready" are controlled and can reload offline
      if (await complete()) postReady();
    })(),
  );
});

sw.addEventListener('message', (event) => {
  const data = event.data as { type?: string } | null;
  // a page asks how things stand (after its warm-up): stores whatever is missing, then "ready"
  if (data?.type === 'status') event.waitUntil(fill().then(postReady, reportPartial).catch(() => undefined));
});

/** Cached copy; a listed file not stored yet is stored on the way (verified), else the network. */
async function cacheFirst(key: string, request: Request): Promise<Response> {
  const hit = await caches.match(key, { cacheName: CACHE });
  if (hit) return hit;
  const entry = entries.get(key);
  if (entry) {
    try {
      return await obtain(entry, await caches.open(CACHE));
    } catch {
      // a changed file on the server, or no network: as if there were no service worker
    }
  }
  return fetch(request);
}

async function navigate(request: Request, fallback: string): Promise<Response> {
  try {
    const response = await fetch(request);
    if (response.status < 500) return response;
  } catch {
    // offline: the app shell below
  }
  const shell = await caches.match(fallback, { cacheName: CACHE });
  if (shell) return shell;
  return Response.error();
}

sw.addEventListener('fetch', (event) => {
  const { request } = event;
  const route = routeRequest(
    { method: request.method, url: request.url, mode: request.mode, range: request.headers.has('range') },
    sw.location.origin,
    listed,
    ROOT,
  );
  if (route.kind === 'cache') event.respondWith(cacheFirst(route.key, request));
  else if (route.kind === 'navigate') event.respondWith(navigate(request, route.fallback));
});
