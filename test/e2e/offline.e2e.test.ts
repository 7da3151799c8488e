// Offline use of the built app: the first visit stores the app shell, the hashed assets,
// ORT's files and every model (the footer says when it is done); then, with the network
// cut, a reload starts the engine from the cache, cross-origin isolated (ORT threads), and
// a photo is still analysed on Detect & analyse.
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Browser, Request } from 'playwright-core';
import { ORT_FILES } from '../../tools/vite-ort-assets.ts';
import { openApp, startApp, stopApp, type App } from './app.ts';
import { data } from './paths.ts';

let browser: Browser;
let app: App;

beforeAll(async () => void ({ browser, app } = await startApp('face')));
afterAll(async () => {
  await app?.context.setOffline(false);
  await stopApp({ browser, app });
});

const READY = /^Ready to work offline \((\d+) files, (\d+(?:\.\d)?) MB cached\)/;

describe('Offline', () => {
  let files = 0;

  test('the first visit stores the app, ORT and every model, and says so in the footer', async () => {
    const { page } = app;
    const status = page.locator('#offline-status');
    const started = Date.now();
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          const text = (await status.textContent()) ?? '';
          seen.add(text.replace(/\d+/g, 'N'));
          return text;
        },
        { timeout: 180_000, interval: 200 },
      )
      .toMatch(READY);
    const precacheMs = Date.now() - started;
    const [, count, mb] = READY.exec((await status.textContent())!)!;
    files = Number(count);
    expect(seen).toContain('Preparing offline use… N/N files, N MB of N MB');

    const state = await page.evaluate(async () => {
      const names = (await caches.keys()).filter((n) => n.startsWith('faces-offline-'));
      const cache = await caches.open(names[0]!);
      const entries = await cache.keys();
      const wasm = await cache.match('/ort/ort-wasm-simd-threaded.wasm');
      const models = ((await (await fetch('/models/manifest.json')).json()) as { models: { file: string }[] }).models.map((m) => `/models/${m.file}`);
      const estimate = await navigator.storage.estimate();
      return {
        names,
        keys: entries.map((r) => new URL(r.url).pathname),
        wasmHeaders: Object.fromEntries(wasm?.headers ?? []),
        models,
        usage: estimate.usage ?? 0,
        controlled: navigator.serviceWorker.controller !== null,
      };
    });
    expect(state.names).toHaveLength(1);
    // clients.claim(): the first visit is controlled without a reload
    expect(state.controlled).toBe(true);
    expect(state.keys).toHaveLength(files);
    expect(state.keys).toContain('/index.html');
    expect(state.keys.some((k) => /^\/assets\/vision\.worker-[\w-]+\.js$/.test(k))).toBe(true);
    for (const name of ORT_FILES) expect(state.keys).toContain(`/ort/${name}`);
    for (const model of [...state.models, '/models/manifest.json']) expect(state.keys).toContain(model);
    expect(state.wasmHeaders).toMatchObject({
      'content-type': 'application/wasm',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
    });
    console.info(
      `offline: ${files} files, ${mb} MB precached in ${(precacheMs / 1000).toFixed(1)} s after the engine was ready; ` +
        `storage used by the origin ${(state.usage / 1e6).toFixed(1)} MB`,
    );
  });

  test('offline, a reload starts the engine from the cache, isolated, and analyses a photo', async () => {
    const { page, context } = app;
    expect(files).toBeGreaterThan(0);
    await page.locator('body[data-models="warm"]').waitFor({ timeout: 120_000 });
    const requests: Request[] = [];
    const onRequest = (r: Request) => void requests.push(r);
    context.on('request', onRequest);
    await context.setOffline(true);
    // nothing reaches the server any more
    expect(await page.evaluate(() => fetch('/models/manifest.json?probe=1').then((r) => r.status, () => 'failed'))).toBe('failed');

    const started = Date.now();
    await page.reload();
    await page.locator('body[data-engine="ready"]').waitFor({ timeout: 120_000 });
    const startMs = Date.now() - started;
    // every pipeline model loads from the cache: the warm-up completes offline
    await page.locator('body[data-models="warm"]').waitFor({ timeout: 120_000 });
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const runtime = (await page.locator('#runtime-status').textContent()) ?? '';
    const threads = Number(/WASM, (\d+) threads?/.exec(runtime)?.[1] ?? 0);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    expect(threads).toBe(Math.min(4, cores));

    await page.getByLabel('Photo to analyse').locator('input[type=file]').setInputFiles(data('faces/obama/obama.jpg'));
    await expect.poll(() => page.locator('#panel-detect .summary').textContent(), { timeout: 90_000 }).toMatch(/^1 face found in obama\.jpg/);
    await expect.poll(() => page.locator('#panel-detect .face-card').first().textContent()).toMatch(/Age.*about \d+/);
    await expect.poll(() => page.locator('#offline-status').textContent(), { timeout: 30_000 }).toMatch(READY);
    await app.screenshot('offline');

    // the vision worker (where ORT runs) is isolated too
    await page.getByRole('tab', { name: 'Developer' }).click();
    expect(await page.locator('#panel-developer').textContent()).toMatch(/Cross-origin isolated\s*yes/);
    await page.getByRole('tab', { name: 'Detect & analyse' }).click();

    context.off('request', onRequest);
    const http = requests.filter((r) => r.url().startsWith('http'));
    const served = await Promise.all(
      http.map(async (r) => ({ url: new URL(r.url()).pathname, fromCache: (await r.response())?.fromServiceWorker() ?? false, failed: r.failure()?.errorText })),
    );
    const ort = [...new Set(served.filter((s) => s.url.startsWith('/ort/')).map((s) => s.url))].sort();
    console.info(
      `offline reload: engine ready in ${(startMs / 1000).toFixed(1)} s, ${threads} threads, ` +
        `${served.filter((s) => s.fromCache).length} requests from the cache; ORT files used: ${ort.join(', ')}`,
    );
    // the app's own files all came from the service worker; the one probe above failed
    expect(served.filter((s) => !s.fromCache).map((s) => s.url)).toEqual(['/models/manifest.json']);
    expect(ort).toEqual(['/ort/ort-wasm-simd-threaded.mjs', '/ort/ort-wasm-simd-threaded.wasm']);
    expect(served.some((s) => s.url.startsWith('/models/') && s.url.endsWith('.onnx') && s.fromCache)).toBe(true);
    // the only error the page saw is the probe's
    expect(app.errors).toEqual(['Failed to load resource: net::ERR_INTERNET_DISCONNECTED']);
  });

  test('offline right after the first visit\'s warm-up: the worker\'s models came through the service worker, and a reload works', async () => {
    // a fresh context: a first visit, with no service worker yet
    const first = await openApp(browser);
    try {
      const { page, context } = first;
      const served: { url: string; fromCache: Promise<boolean> }[] = [];
      const onFinished = (r: Request) => {
        const url = new URL(r.url()).pathname;
        // the page's and its workers' requests (not the service worker's own downloads)
        if (/\.(onnx|wasm)$/.test(url) && !r.serviceWorker()) served.push({ url, fromCache: r.response().then((x) => x?.fromServiceWorker() ?? false) });
      };
      context.on('requestfinished', onFinished);
      // the page waited for the service worker before starting the engine (app shell stored)
      expect(await page.evaluate(() => [document.body.dataset.offlineControlled, navigator.serviceWorker.controller !== null])).toEqual(['true', true]);
      const waitMs = Number(await page.evaluate(() => document.body.dataset.offlineWaitMs));
      await page.locator('body[data-models="warm"]').waitFor({ timeout: 120_000 });
      // right away, before the rest of the app is stored
      await context.setOffline(true);
      context.off('requestfinished', onFinished);
      const atCut = await page.evaluate(async () => {
        const names = (await caches.keys()).filter((n) => n.startsWith('faces-offline-'));
        const keys = (await (await caches.open(names[0]!)).keys()).map((r) => new URL(r.url).pathname);
        return { keys, total: ((await (await fetch('/offline-manifest.json').catch(() => undefined))?.json().catch(() => undefined)) as { entries: unknown[] } | undefined)?.entries.length };
      });
      const warmUp = await Promise.all(served.map(async (s) => ({ url: s.url, fromCache: await s.fromCache })));
      console.info(
        `first visit: the engine waited ${waitMs} ms for the service worker (app shell stored); ${warmUp.length} model/WASM fetches during the warm-up, ${warmUp.filter((s) => s.fromCache).length} through the service worker; ` +
          `cache at the cut: ${atCut.keys.length} files (${atCut.keys.filter((k) => k.endsWith('.onnx')).length} models); footer: ${await page.locator('#offline-status').textContent()}`,
      );
      // the vision worker started under the service worker: every model and WASM fetch went through it (and was stored)
      expect(warmUp.length).toBeGreaterThan(0);
      expect(warmUp.filter((s) => !s.fromCache)).toEqual([]);
      for (const s of warmUp) expect(atCut.keys).toContain(s.url);
      // ORT's WASM was fetched before this test could listen (engine start): stored as well
      expect(atCut.keys).toContain('/ort/ort-wasm-simd-threaded.wasm');

      await page.reload();
      await page.locator('body[data-engine="ready"]').waitFor({ timeout: 120_000 });
      await page.locator('body[data-models="warm"]').waitFor({ timeout: 120_000 });
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      await page.getByLabel('Photo to analyse').locator('input[type=file]').setInputFiles(data('faces/obama/obama.jpg'));
      await expect.poll(() => page.locator('#panel-detect .summary').textContent(), { timeout: 90_000 }).toMatch(/^1 face found in obama\.jpg/);
      // the footer says what holds: all stored, or offline with what is stored
      await expect.poll(() => page.locator('#offline-status').textContent(), { timeout: 30_000 }).toMatch(/^(Ready to work offline|Works offline with what is stored)/);
      await first.screenshot('offline-after-first-warm-up');
    } finally {
      await first.context.setOffline(false);
      await first.close();
    }
  });

  test('too little storage is said plainly, and nothing is left behind', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      // this origin may store 20 MB (far less than the app needs)
      const cdp = await context.newCDPSession(page);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: inject('baseUrl'), quotaSize: 20e6 });
      await page.goto(inject('baseUrl') + '/');
      await page.locator('body[data-engine="ready"]').waitFor({ timeout: 90_000 });
      const status = page.locator('#offline-status');
      await expect.poll(() => status.textContent(), { timeout: 60_000 }).toMatch(/^Offline use is not available: not enough storage: .* Free up disk space/);
      // nothing left behind: no cache, no worker (a reload is not controlled)
      const left = async () =>
        page.evaluate(async () => ({ caches: await caches.keys(), workers: (await navigator.serviceWorker.getRegistrations()).length }));
      await expect.poll(left, { timeout: 30_000 }).toEqual({ caches: [], workers: 0 });
      // a reload tries again (the message says to reload once space is freed): the page still
      // works, says the same, and again leaves nothing behind
      await page.reload();
      await page.locator('body[data-engine="ready"]').waitFor({ timeout: 90_000 });
      await expect.poll(() => status.textContent(), { timeout: 60_000 }).toMatch(/^Offline use is not available: not enough storage/);
      await expect.poll(left, { timeout: 30_000 }).toEqual({ caches: [], workers: 0 });
    } finally {
      await context.close();
    }
  });
});
