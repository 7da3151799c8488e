// The pure parts of offline support: the precache manifest of a build, cache naming, which
// requests the service worker answers, and the footer texts.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  cacheName,
  contentTypeFor,
  describeOffline,
  isDeferred,
  isOfflineCache,
  isPrecached,
  routeRequest,
  atScope,
  type RequestFacts,
} from '../../src/demo/offline/precache.ts';
import { buildPrecacheManifest, collectBuildFiles, type BuildFile } from '../../tools/vite-offline.ts';

const file = (path: string, sha256 = path.length.toString(16).padStart(64, '0'), bytes = 10): BuildFile => ({ path, bytes, sha256 });

const build: BuildFile[] = [
  file('index.html'),
  file('assets/index-AbC123.js', undefined, 1000),
  file('assets/index-AbC123.js.map'),
  file('assets/vision.worker-XyZ.js'),
  file('ort/ort-wasm-simd-threaded.wasm', undefined, 14_000_000),
  file('ort/ort-wasm-simd-threaded.asyncify.wasm'),
  file('models/manifest.json'),
  file('models/iris.onnx'),
  file('sw.js'),
  file('offline-manifest.json'),
  file('.well-known/x'),
];

describe('precache manifest', () => {
  test("lists every file of the build but the worker, its manifest, source maps and dotfiles, sorted, relative to the app's root", () => {
    const m = buildPrecacheManifest(build);
    expect(m.entries.map((e) => e.url)).toEqual([
      'assets/index-AbC123.js',
      'assets/vision.worker-XyZ.js',
      'index.html',
      'models/iris.onnx',
      'models/manifest.json',
      'ort/ort-wasm-simd-threaded.asyncify.wasm',
      'ort/ort-wasm-simd-threaded.wasm',
    ]);
    expect(m.bytes).toBe(1000 + 14_000_000 + 5 * 10);
    expect(m.version).toMatch(/^[0-9a-f]{16}$/);
  });

  test('the service worker places the entries under its own folder (any base path)', () => {
    const m = buildPrecacheManifest(build);
    expect(atScope(m, '/').entries.map((e) => e.url)).toContain('/models/iris.onnx');
    const sub = atScope(m, '/some/sub/path/');
    expect(sub.entries.map((e) => e.url)).toContain('/some/sub/path/index.html');
    expect(sub.entries.map((e) => e.url)).toContain('/some/sub/path/assets/index-AbC123.js');
    expect(sub.version).toBe(m.version);
  });

  test('the version depends on paths and contents only, not on listing order', () => {
    const a = buildPrecacheManifest(build);
    expect(buildPrecacheManifest([...build].reverse()).version).toBe(a.version);
    const changed = build.map((f) => (f.path === 'models/iris.onnx' ? { ...f, sha256: 'f'.repeat(64) } : f));
    expect(buildPrecacheManifest(changed).version).not.toBe(a.version);
    const renamed = build.map((f) => (f.path === 'assets/index-AbC123.js' ? { ...f, path: 'assets/index-Other1.js' } : f));
    expect(buildPrecacheManifest(renamed).version).not.toBe(a.version);
    // files that are not precached do not change it
    expect(buildPrecacheManifest(build.filter((f) => f.path !== 'sw.js')).version).toBe(a.version);
  });

  test('collects a directory tree with sizes and SHA-256', () => {
    const dir = mkdtempSync(join(tmpdir(), 'offline-'));
    let files: BuildFile[];
    try {
      mkdirSync(join(dir, 'ort'));
      writeFileSync(join(dir, 'index.html'), 'abc');
      writeFileSync(join(dir, 'ort', 'x.wasm'), new Uint8Array(5));
      files = collectBuildFiles(dir).sort((a, b) => a.path.localeCompare(b.path));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(files).toEqual([
      { path: 'index.html', bytes: 3, sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' },
      { path: 'ort/x.wasm', bytes: 5, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
  });
});

describe('cache naming', () => {
  test('one cache per version, recognisable for clean-up', () => {
    expect(cacheName('d29240dc0eea6617')).toBe('faces-offline-d29240dc0eea6617');
    expect(isOfflineCache(cacheName('x'))).toBe(true);
    expect(isOfflineCache('some-other-app')).toBe(false);
    // copies of the app in two folders of one origin keep apart
    expect(cacheName('abc', '/sub/')).toBe('faces-offline-/sub/abc');
    expect(isOfflineCache(cacheName('abc', '/sub/'), '/sub/')).toBe(true);
    expect(isOfflineCache(cacheName('abc', '/sub/'))).toBe(false);
    expect(isOfflineCache(cacheName('abc'), '/sub/')).toBe(false);
    expect(isOfflineCache(cacheName('abc', '/sub/deeper/'), '/sub/')).toBe(false);
    expect(isPrecached('sw.js')).toBe(false);
    expect(isPrecached('/assets/a.js')).toBe(true);
  });

  test('content types keep .wasm streamable', () => {
    expect(contentTypeFor('/ort/ort-wasm-simd-threaded.wasm')).toBe('application/wasm');
    expect(contentTypeFor('/ort/ort-wasm-simd-threaded.mjs')).toMatch(/^text\/javascript/);
    expect(contentTypeFor('/models/iris.onnx')).toBe('application/octet-stream');
  });
});

describe('routing', () => {
  const origin = 'http://127.0.0.1:5173';
  const listed = new Set(atScope(buildPrecacheManifest(build), '/').entries.map((e) => e.url));
  const req = (url: string, more: Partial<RequestFacts> = {}): RequestFacts => ({ method: 'GET', url: origin + url, mode: 'cors', range: false, ...more });
  const route = (r: RequestFacts) => routeRequest(r, origin, listed);

  test('listed same-origin GETs come from the cache', () => {
    expect(route(req('/models/iris.onnx'))).toEqual({ kind: 'cache', key: '/models/iris.onnx' });
    expect(route(req('/ort/ort-wasm-simd-threaded.wasm', { mode: 'same-origin' }))).toEqual({ kind: 'cache', key: '/ort/ort-wasm-simd-threaded.wasm' });
  });

  test('page loads: the app shell, whatever the query; other paths fall back to it', () => {
    expect(route(req('/', { mode: 'navigate' }))).toEqual({ kind: 'cache', key: '/index.html' });
    expect(route(req('/?backend=wasm#galleries', { mode: 'navigate' }))).toEqual({ kind: 'cache', key: '/index.html' });
    expect(route(req('/somewhere', { mode: 'navigate' }))).toEqual({ kind: 'navigate', fallback: '/index.html' });
  });

  test('range requests, other methods, origins, queries and unlisted files are not touched', () => {
    expect(route(req('/models/iris.onnx', { range: true }))).toEqual({ kind: 'pass' });
    expect(route(req('/models/iris.onnx', { method: 'POST' }))).toEqual({ kind: 'pass' });
    expect(route(req('/models/iris.onnx?v=2'))).toEqual({ kind: 'pass' });
    expect(route(req('/my-video.mp4'))).toEqual({ kind: 'pass' });
    expect(route(req('/sw.js'))).toEqual({ kind: 'pass' });
    expect(route({ method: 'GET', url: 'https://api.kairos.com/detect', mode: 'cors', range: false })).toEqual({ kind: 'pass' });
    expect(route({ method: 'GET', url: 'blob:http://127.0.0.1:5173/0c1d', mode: 'cors', range: false })).toEqual({ kind: 'pass' });
  });
});

describe('routing under a base path', () => {
  const origin = 'http://127.0.0.1:5173';
  const root = '/some/sub/path/';
  const listed = new Set(atScope(buildPrecacheManifest(build), root).entries.map((e) => e.url));
  const req = (url: string, more: Partial<RequestFacts> = {}): RequestFacts => ({ method: 'GET', url: origin + url, mode: 'cors', range: false, ...more });
  const route = (r: RequestFacts) => routeRequest(r, origin, listed, root);

  test("the app's files and page loads in its folder; nothing outside it", () => {
    expect(route(req('/some/sub/path/models/iris.onnx'))).toEqual({ kind: 'cache', key: '/some/sub/path/models/iris.onnx' });
    expect(route(req('/some/sub/path/', { mode: 'navigate' }))).toEqual({ kind: 'cache', key: '/some/sub/path/index.html' });
    expect(route(req('/some/sub/path/elsewhere', { mode: 'navigate' }))).toEqual({ kind: 'navigate', fallback: '/some/sub/path/index.html' });
    expect(route(req('/models/iris.onnx'))).toEqual({ kind: 'pass' });
    expect(route(req('/', { mode: 'navigate' }))).toEqual({ kind: 'pass' });
  });
});

describe('footer texts', () => {
  test('progress, ready and errors', () => {
    expect(describeOffline({ type: 'progress', version: 'v', done: 12, total: 25, bytesDone: 40_100_000, bytesTotal: 87_410_526 })).toBe(
      'Preparing offline use… 12/25 files, 40 MB of 87 MB',
    );
    expect(describeOffline({ type: 'ready', version: 'v', files: 25, bytes: 87_410_526, ms: 900 })).toBe('Ready to work offline (25 files, 87 MB cached)');
    expect(describeOffline({ type: 'error', version: 'v', message: 'not enough storage' })).toBe('Offline use is not available: not enough storage');
    expect(describeOffline({ type: 'partial', version: 'v', done: 20, total: 25, bytesDone: 60_000_000, bytesTotal: 87_410_526 })).toBe(
      'Works offline with what is stored (20/25 files, 60 MB of 87 MB); the rest is stored when back online',
    );
  });
});

describe('what install stores and what follows', () => {
  test('models and ORT\'s WASM binary wait for the vision worker (or the fill after the warm-up); the shell is stored at install', () => {
    for (const p of ['/models/gear.onnx', '/ort/ort-wasm-simd-threaded.wasm', '/ort/ort-wasm-simd-threaded.jsep.wasm']) expect(isDeferred(p), p).toBe(true);
    for (const p of ['/index.html', '/assets/index-abc.js', '/assets/vision.worker-x.js', '/ort/ort-wasm-simd-threaded.mjs', '/models/manifest.json']) expect(isDeferred(p), p).toBe(false);
  });
});
