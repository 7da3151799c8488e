// engine.importGallery into subjects that already have templates, past a real quota part-way
// (Chromium's quota override, as store-quota.e2e.test.ts sets it, on a dev-server page of the
// engine: test/e2e/pages/import-quota.ts). The import spans several transactions (32 MB each,
// src/store/import-chunks.ts): the first commits, the second is refused, the first is taken
// back. The subjects must keep exactly their old templates and photos and gain none of the
// new ones — in this page and in a fresh engine after a reload.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startBrowserSession, type BrowserSession } from '../../tools/harness/browser-session.ts';

const PAGE = '/test/e2e/pages/import-quota.html';
const QUOTA = 40_000_000;
let session: BrowserSession;

beforeAll(async () => {
  session = await startBrowserSession({ callTimeoutMs: 120_000, optimizeEntries: [PAGE] });
  const cdp = await session.page.context().newCDPSession(session.page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(session.baseUrl).origin, quotaSize: QUOTA });
  await session.open(PAGE);
  await session.call('open');
});
afterAll(() => session?.close());

test('an import into existing subjects that runs out of quota leaves them exactly as they were, also after a reload', async () => {
  // 10 subjects with one template and a 200 kB photo each: 2 MB of the 40
  expect(await session.call('importing', 'old', 10, 1, 200_000)).toMatchObject({ gallery_name: 'team', templates: 10 });
  const before = await session.call<string>('contents');
  expect(before).toContain('old-9-0');

  // the same 10 subjects, two more templates each with a 3 MB photo: 60 MB in two transactions
  // of ~30 MB; the first fits, the second does not
  const refused = await session.call<{ code: number; message: string }>('importing', 'new', 10, 2, 3_000_000);
  expect(refused, JSON.stringify(refused)).toMatchObject({ code: 3004, message: expect.stringMatching(/^storage is full: .*nothing was stored/) });
  const after = await session.call<string>('contents');
  expect(after).not.toContain('new-');
  expect(after).toBe(before);

  // what the database holds, as a fresh engine reads it
  await session.open(PAGE);
  await session.call('open');
  expect(await session.call<string>('contents')).toBe(before);
});
