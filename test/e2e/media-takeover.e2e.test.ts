// A /v2/media job whose tab crashes is finished by a tab that was already open before the
// POST — without anyone asking: the demo page in two tabs of one profile, the job posted in
// the second through the page's fetch shim (multipart, timeout=0 → 202), that tab crashed
// (DevTools Page.crash: no unload, no cleanup), and the first tab's copy of the job in
// IndexedDB watched until it is complete; then GET there answers the media object.
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { launchBrowser } from './app.ts';
import { data } from './paths.ts';

let browser: Browser;
let context: BrowserContext;

async function openTab(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(inject('baseUrl') + '/');
  await page.locator('body[data-engine="ready"]').waitFor({ timeout: 120_000 });
  return page;
}

/** The job's state as stored in the demo's media database, read directly (no engine call). */
function storedState(page: Page, id: string): Promise<string | undefined> {
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('kairos-in-browser-media');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    try {
      const jobs = await new Promise<{ id: string; state: string }[]>((resolve, reject) => {
        const request = db.transaction('jobs').objectStore('jobs').getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      return jobs.find((job) => job.id === id)?.state;
    } finally {
      db.close();
    }
  }, id);
}

beforeAll(async () => {
  browser = await launchBrowser('pattern');
  context = await browser.newContext();
});
afterAll(() => browser?.close());

test('a tab open before the POST finishes the job after the owner tab crashes', async () => {
  const watcher = await openTab();
  const owner = await openTab();
  const clip = readFileSync(data('video/synthetic_panzoom_biden_vp9.webm')).toString('base64');
  const posted = await owner.evaluate(async (clip) => {
    const form = new FormData();
    form.append('source', new File([Uint8Array.from(atob(clip), (c) => c.charCodeAt(0))], 'clip.webm', { type: 'video/webm' }));
    const r = await fetch('https://api.kairos.com/v2/media?timeout=0', { method: 'POST', headers: { app_id: 'demo', app_key: 'demo' }, body: form });
    return { status: r.status, body: (await r.json()) as { id: string; status_code: number } };
  }, clip);
  expect(posted.status).toBe(202);
  const { id } = posted.body;
  // the owner has started on it
  for (let k = 0; k < 100 && (await storedState(watcher, id)) !== 'processing'; k++) await new Promise((r) => setTimeout(r, 100));
  expect(await storedState(watcher, id)).toBe('processing');

  const crashed = new Promise<void>((resolve) => owner.once('crash', () => resolve()));
  const devtools = await context.newCDPSession(owner);
  void devtools.send('Page.crash').catch(() => {});
  await crashed;

  // nobody calls the engine in the watcher: it takes the job over by itself
  let state: string | undefined;
  for (let k = 0; k < 900 && (state = await storedState(watcher, id)) !== 'complete'; k++) await new Promise((r) => setTimeout(r, 200));
  expect(state).toBe('complete');
  const result = await watcher.evaluate(async (id) => {
    const r = await fetch(`https://api.kairos.com/v2/media/${id}`, { headers: { app_id: 'demo', app_key: 'demo' } });
    return { status: r.status, body: (await r.json()) as { frames?: { people: unknown[] }[]; status_code?: number } };
  }, id);
  expect(result.status).toBe(200);
  expect(result.body.frames?.length).toBeGreaterThan(0);
  expect(result.body.frames!.some((frame) => frame.people.length === 1)).toBe(true);
});
