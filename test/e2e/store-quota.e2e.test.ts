// A bulk import that runs into a real quota part-way: Chromium's quota override (DevTools
// protocol), set before the page first touches storage, on a dev-server page of the gallery
// store (test/e2e/pages/store-quota.ts) that imports in transactions of 50 templates. The
// chunk past the quota fails, the chunks before it are taken back, the answer is 3004 with the
// usage and quota the browser reports (its estimate does not show an overridden quota), and the galleries are exactly as before (a new one not created at all).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startBrowserSession, type BrowserSession } from '../../tools/harness/browser-session.ts';
import { usageDownTo, writeOnceFreed } from './freed-space.ts';

const QUOTA = 12_000_000;
let session: BrowserSession;

beforeAll(async () => {
  session = await startBrowserSession({ callTimeoutMs: 120_000, optimizeEntries: ['/test/e2e/pages/store-quota.html'] });
  const cdp = await session.page.context().newCDPSession(session.page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(session.baseUrl).origin, quotaSize: QUOTA });
  await session.open('/test/e2e/pages/store-quota.html');
  await session.call('open');
});
afterAll(() => session?.close());

type Outcome = { ok: true; templates: number } | { ok: false; code: number; message: string };

test('a later chunk past the quota: 3004 naming the limit, nothing of the import left, and room again afterwards', async () => {
  // 30 templates, 10 photos of 400 kB: ~4 MB of the 12 MB
  expect(await session.call<Outcome>('importing', 'kept', 30, 'old')).toEqual({ ok: true, templates: 30 });
  const kept = await session.call<string>('contents', 'kept');
  const usageBefore = await session.call<number>('usage');
  // 300 templates in 6 chunks of ~6.8 MB: the first fits, the second does not
  for (const gallery of ['fresh', 'kept']) {
    const outcome = await session.call<Outcome>('importing', gallery, 300, 'new');
    expect(outcome).toMatchObject({ ok: false, code: 3004 });
    expect((outcome as { message: string }).message).toMatch(/^storage is full: .*this site uses [\d.]+ MB of [\d.]+ [MG]B.*nothing was stored/);
  }
  expect(await session.call<string>('contents', 'fresh')).toBe('absent');
  expect(await session.call<string>('contents', 'kept')).toBe(kept);
  // what the failed chunks wrote is freed: an import of one chunk's size still fits, once Chromium
  // has let go of the rolled-back chunks' space (lazily: test/e2e/freed-space.ts); each import
  // refused meanwhile leaves nothing behind either
  const usage = () => session.call<number>('usage');
  const usageAfter = await usage();
  const freed = await usageDownTo(usage, usageBefore + 1_000_000);
  const again = await writeOnceFreed(
    () => session.call<Outcome>('importing', 'kept', 45, 'more'),
    (outcome) => !outcome.ok && outcome.code === 3004,
    async () => expect(await session.call<string>('contents', 'kept')).toBe(kept),
  );
  expect(again, JSON.stringify({ usageBefore, usageAfter, freed, usageNow: await usage() })).toEqual({ ok: true, templates: 45 });
});
