// The demo's service worker, built by tools/vite-offline.ts into /sw.js (a classic script,
// with the precache manifest of that build inlined as self.__PRECACHE__).
//
// install  — stores every file of the build (app shell, hashed assets incl. the vision worker,
//            ORT's .mjs/.wasm, every model) in a cache named after the manifest's hash; files
//            whose SHA-256 is unchanged are copied from the previous version's cache instead of
//            downloaded. Every file is checked against its SHA-256 before it is stored, and the
//            stored copy carries COOP/COEP/CORP so pages and workers served from it stay
//            cross-origin isolated (ORT's threads need SharedArrayBuffer).
// activate — deletes older caches of this app and claims open pages.
// fetch    — cache-first for listed same-origin GETs; page loads fall back to the cached
//            index.html; everything else (range requests, user media, blob:, other origins)
//            is left to the browser.
import {
  CHANNEL_NAME,
  ISOLATION_HEADERS,
  SHA_HEADER,
  cacheName,
  contentTypeFor,
  isOfflineCache,
  routeRequest,
  type OfflineMessage,
  type PrecacheEntry,
  type PrecacheManifest,
} from './precache.ts';

const sw = globalThis as unknown as ServiceWorkerGlobalScope & { __PRECACHE__?: PrecacheManifest };
const manifest: PrecacheManifest = sw.__PRECACHE__ ?? { version: 'missing', bytes: 0, entries: [] };
const CACHE = cacheName(manifest.version);
const listed = new Set(manifest.entries.map((e) => e.url));
const channel = new BroadcastChannel(CHANNEL_NAME);
/** parallel downloads while precaching (each holds one file in memory to hash it) */
const PARALLEL = 4;

const post = (m: OfflineMessage) => channel.postMessage(m);
/** how long the last fill took (reported with "ready") */
let fillMs = 0;
const postReady = () =>
  post({ type: 'ready', version: manifest.version, files: manifest.entries.length, bytes: manifest.bytes, ms: fillMs });
const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

class OfflineError extends Error {}

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
async function fromOlderCache(entry: PrecacheEntry, older: Cache[]): Promise<Response | undefined> {
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
    throw new OfflineError(`could not download ${entry.url} (network error)`);
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

/** Fills the current cache with every listed file it lacks, broadcasting progress. */
async function fill(): Promise<void> {
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
    const olderNames = (await caches.keys()).filter((n) => isOfflineCache(n) && n !== CACHE);
    const older = await Promise.all(olderNames.map((n) => caches.open(n)));
    // copies from an older cache cost no new space; downloads do
    const reusable = new Map<string, Response>();
    for (const e of missing) {
      const hit = await fromOlderCache(e, older);
      if (hit) reusable.set(e.url, hit);
    }
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
    progress();
    const queue = [...missing];
    let failed = false;
    const worker = async () => {
      for (let e = queue.shift(); e && !failed; e = queue.shift()) {
        const response = reusable.get(e.url) ?? (await download(e));
        try {
          await cache.put(e.url, response);
        } catch (err) {
          if (isQuotaError(err)) {
            throw new OfflineError(
              `not enough storage: the browser refused to store ${e.url} (${mb(e.bytes)}) after ${mb(bytesDone)} of ${mb(manifest.bytes)}. Free up disk space, then reload.`,
            );
          }
          throw err;
        }
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
  fillMs = Math.round(performance.now() - started);
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

sw.addEventListener('install', (event) => {
  // a failed fill fails the install: the previous version (if any) stays in charge, and the
  // next page load tries again
  event.waitUntil(
    (async () => {
      const existed = await caches.has(CACHE);
      try {
        await reported(fill());
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
      await Promise.all(names.filter((n) => isOfflineCache(n) && n !== CACHE).map((n) => caches.delete(n)));
      await sw.clients.claim();
      // only now: pages told "ready" are controlled and can reload offline
      postReady();
    })(),
  );
});

sw.addEventListener('message', (event) => {
  const data = event.data as { type?: string } | null;
  // a page asks how things stand: answers "ready", re-filling whatever went missing
  if (data?.type === 'status') event.waitUntil(reported(fill().then(postReady)).catch(() => undefined));
});

/** Cached copy, else the network (a cache that lost a file still works online). */
async function cacheFirst(key: string, request: Request): Promise<Response> {
  const hit = await caches.match(key, { cacheName: CACHE });
  return hit ?? fetch(request);
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
  );
  if (route.kind === 'cache') event.respondWith(cacheFirst(route.key, request));
  else if (route.kind === 'navigate') event.respondWith(navigate(request, route.fallback));
});
