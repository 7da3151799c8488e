// The built demo deployed under a sub-path, as GitHub Pages serves a project
// (https://user.github.io/project/): the suite's build, unchanged, served by a plain static
// server (COOP/COEP) at /some/sub/path/. The page analyses a photo there, every file it and
// its workers ask for lies under that path, the service worker registers with that scope and
// stores the app there, and a reload with the network cut still analyses a photo.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { serveStatic, type StaticServer } from '../../tools/harness/static-server.ts';
import { launchBrowser, openApp, type App } from './app.ts';
import { data } from './paths.ts';

const PREFIX = '/some/sub/path/';
const READY = /^Ready to work offline \((\d+) files/;

let browser: Browser | undefined;
let server: StaticServer | undefined;
let app: App | undefined;
let www: string;

const panel = (page: Page) => page.locator('#panel-detect');

async function detectObama(page: Page): Promise<void> {
  await page.getByLabel('Photo to analyse').locator('input[type=file]').setInputFiles(data('faces/obama/obama.jpg'));
  await expect.poll(() => panel(page).locator('.summary').textContent(), { timeout: 90_000 }).toMatch(/^1 face found in obama\.jpg/);
}

beforeAll(async () => {
  // a web root whose only content is the build, one folder deep at PREFIX
  www = mkdtempSync(join(tmpdir(), 'e2e-base-path-'));
  mkdirSync(join(www, 'some/sub'), { recursive: true });
  symlinkSync(inject('siteDir'), join(www, 'some/sub/path'));
  server = await serveStatic(www, { isolated: true });
  browser = await launchBrowser('face');
  app = await openApp(browser, { baseUrl: server.baseUrl, path: PREFIX });
});

afterAll(async () => {
  await app?.context.setOffline(false);
  await app?.close();
  await browser?.close();
  await server?.close();
  rmSync(www, { recursive: true, force: true });
});

describe('the demo under a sub-path', () => {
  test('analyses a photo; the page, its workers and ORT fetch only files under the sub-path', async () => {
    const { page } = app!;
    await detectObama(page);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const requests = server!.requests;
    // the models and ORT's WASM came from the build at the sub-path (not from the site root)
    expect(requests).toContain(`${PREFIX}models/manifest.json`);
    expect(requests).toContain(`${PREFIX}ort/ort-wasm-simd-threaded.wasm`);
    expect(requests.filter((p) => !p.startsWith(PREFIX))).toEqual([]);
    expect(app!.errors).toEqual([]);
    await app!.screenshot('base-path-detect');
  });

  test('the service worker registers at the sub-path, stores the app there and serves it offline', async () => {
    const { page, context } = app!;
    const registration = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.getRegistration();
      return { scope: r?.scope, script: r?.active?.scriptURL, controlled: document.body.dataset.offlineControlled };
    });
    expect(registration).toEqual({ scope: `${server!.baseUrl}${PREFIX}`, script: `${server!.baseUrl}${PREFIX}sw.js`, controlled: 'true' });

    await expect.poll(() => page.locator('#offline-status').textContent(), { timeout: 180_000, interval: 250 }).toMatch(READY);
    const files = Number(READY.exec((await page.locator('#offline-status').textContent())!)![1]);
    const cached = await page.evaluate(async () => {
      const names = (await caches.keys()).filter((n) => n.startsWith('faces-offline-'));
      const keys = names.length === 1 ? await (await caches.open(names[0]!)).keys() : [];
      return { names, paths: keys.map((r) => new URL(r.url).pathname) };
    });
    // one cache, named after the app's folder (two apps of one origin keep apart)
    expect(cached.names).toEqual([expect.stringMatching(/^faces-offline-\/some\/sub\/path\/[0-9a-f]{16}$/)]);
    expect(cached.paths).toHaveLength(files);
    expect(cached.paths.filter((p) => !p.startsWith(PREFIX))).toEqual([]);
    expect(cached.paths).toEqual(expect.arrayContaining([`${PREFIX}index.html`, `${PREFIX}ort/ort-wasm-simd-threaded.wasm`, `${PREFIX}models/facemesh.onnx`]));

    // no network: the app, ORT and the models come from the cache at the sub-path
    await context.setOffline(true);
    await page.reload();
    await page.locator('body[data-engine="ready"]').waitFor({ timeout: 90_000 });
    await detectObama(page);
  });
});
