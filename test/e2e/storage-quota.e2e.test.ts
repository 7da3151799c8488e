// A browser whose storage quota is used up, for real: Chromium's quota override (DevTools
// protocol) set before the demo page first touches storage (Chromium reads an origin's quota
// once, when its storage is first opened). Calls go through the page's fetch shim exactly as
// an app's code would. The write past the quota answers STORAGE_FULL 3004 / HTTP 507 with
// what to do, the galleries are exactly as before, and once a gallery is removed (space
// freed) the same write succeeds.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { inject } from 'vitest';
import { launchBrowser } from './app.ts';
import { usageDownTo, writeOnceFreed } from './freed-space.ts';
import { data } from './paths.ts';

let browser: Browser;
let page: Page;

/** The Kairos call through the page's fetch shim: [HTTP status, body]. */
async function call(path: string, body: object): Promise<[number, Record<string, unknown>]> {
  return page.evaluate(
    async ({ path, text }) => {
      const r = await fetch(`https://api.kairos.com${path}`, {
        method: 'POST',
        headers: { app_id: 'demo', app_key: 'demo', 'Content-Type': 'application/json' },
        body: text,
      });
      return [r.status, await r.json()] as [number, Record<string, unknown>];
    },
    { path, text: JSON.stringify(body) },
  );
}

const photo = (file: string) => readFileSync(data(file)).toString('base64');
const enroll = (file: string, subject: string, gallery: string) => call('/enroll', { image: photo(file), subject_id: subject, gallery_name: gallery });

/** Everything the account's galleries hold, as the interface lists it. */
async function galleries(): Promise<string> {
  const [, all] = await call('/gallery/list_all', {});
  const out: unknown[] = [all];
  for (const gallery of (all.gallery_ids as string[] | undefined) ?? []) {
    const [, view] = await call('/gallery/view', { gallery_name: gallery });
    out.push(view);
    for (const subject of (view.subject_ids as string[] | undefined) ?? []) out.push((await call('/gallery/view_subject', { gallery_name: gallery, subject_id: subject }))[1]);
  }
  return JSON.stringify(out);
}

const usage = () => page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);

/** A fresh profile's page on the demo, with `quota` bytes for the origin when given; resolves to the origin's usage once the engine is ready. */
async function openDemo(quota?: number): Promise<number> {
  // no service worker: its offline copy of the models would fill the small quota first
  const context = await browser.newContext({ serviceWorkers: 'block' });
  page = await context.newPage();
  const baseUrl = inject('baseUrl');
  if (quota !== undefined) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(baseUrl).origin, quotaSize: quota });
  }
  await page.goto(baseUrl + '/');
  await page.locator('body[data-engine="ready"]').waitFor({ timeout: 120_000 });
  return usage();
}

beforeAll(async () => {
  browser = await launchBrowser('pattern');
  // what the app itself keeps at start, measured in a first profile; the test's profile gets 1.6 MB more
  const startUsage = await openDemo();
  await page.context().close();
  await openDemo(startUsage + 1_600_000);
});
afterAll(() => browser?.close());

test('a write past the quota answers 3004 / 507, changes nothing, and succeeds once space is freed', async () => {
  // 1.3 MB of photos in one gallery, 0.04 MB in another: ~1.35 MB of 1.6 MB with IndexedDB's own overhead
  const spare = [
    ['faces/biden/biden.jpg', 'biden'],
    ['faces/biden/biden2.jpg', 'biden'],
    ['faces/obama/obama.jpg', 'obama'],
    ['faces/obama/obama-1080p.jpg', 'obama'],
  ] as const;
  for (const [file, subject] of spare) {
    const [status, body] = await enroll(file, subject, 'spare');
    expect(status, JSON.stringify(body)).toBe(200);
  }
  expect((await enroll('faces/obama/obama-240p.jpg', 'obama', 'team'))[0]).toBe(200);
  const before = await galleries();

  // 0.89 MB more is 0.6 MB past the quota
  const [status, body] = await enroll('faces/obama/obama2_rgba32.png', 'obama', 'team');
  expect(status).toBe(507);
  expect(body).toMatchObject({ Errors: [{ ErrCode: 3004 }] });
  expect((body.Errors as { Message: string }[])[0]!.Message).toMatch(/storage is full.*remove galleries.*navigator\.storage\.persist\(\)/);
  expect(await galleries()).toBe(before);

  // what docs/api.md tells the user to do: remove a gallery (1.3 MB freed), then try again.
  // Chromium counts the freed space once its database has let go of it (immediate on a quiet
  // machine, later under load): wait until the origin's usage shows it, then the write must
  // succeed (test/e2e/freed-space.ts)
  const full = await usage();
  expect((await call('/gallery/remove', { gallery_name: 'spare' }))[0]).toBe(200);
  const freed = await usageDownTo(usage, full - 1_000_000);
  const [again, refusal] = await writeOnceFreed(() => enroll('faces/obama/obama2_rgba32.png', 'obama', 'team'), ([status]) => status === 507);
  const answer = { ...refusal, usageWhenFull: full, usageAfterRemoval: freed, usageNow: await usage() };
  expect(again, JSON.stringify(answer)).toBe(200);
  const [, subject] = await call('/gallery/view_subject', { gallery_name: 'team', subject_id: 'obama' });
  expect(subject.face_ids).toHaveLength(2);
});
