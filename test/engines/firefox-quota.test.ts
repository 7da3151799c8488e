// A bulk import that runs into Firefox's real storage limit part-way: the page and the steps of
// Chromium's test/e2e/store-quota.e2e.test.ts (imports in transactions of 50 templates), with
// Firefox's quota manager capped at 60 MB for all sites before the page first touches storage
// (a site gets a fifth of it: 12 MB, what the Chromium test gives its origin). The chunk past the
// limit fails, the chunks before it are taken back, the answer is 3004 naming the usage and the
// limit Firefox reports, and the galleries are exactly as before. Then a write of one
// transaction past the limit: Firefox aborts it but keeps requests queued after the refused one,
// which the store takes back. `contents` also counts the raw records of the gallery's key range.
import { expect, test } from 'vitest';
import { withHarnessSession } from '../../tools/harness/harness-session.ts';

const PAGE = '/test/e2e/pages/store-quota.html';
const ALL_SITES_KIB = Math.round(60e6 / 1024);
const options = { callTimeoutMs: 120_000, optimizeEntries: [PAGE], firefoxPrefs: { 'dom.quotaManager.temporaryStorage.fixedLimit': ALL_SITES_KIB } };
const FULL = /^storage is full: this site uses [\d.]+ MB of the 12\.0 MB this browser allows it.*nothing was stored/;

type Outcome = { ok: true; templates: number } | { ok: false; code: number; message: string };
type Session = Parameters<Parameters<typeof withHarnessSession>[2]>[0];

/** An import the page's store must refuse with 3004 naming Firefox's limit for the site. */
async function refusedForQuota(session: Session, gallery: string, templates: number, prefix: string): Promise<void> {
  const outcome = await session.call<Outcome>('importing', gallery, templates, prefix);
  expect(outcome).toMatchObject({ ok: false, code: 3004 });
  expect((outcome as { message: string }).message).toMatch(FULL);
}

test('firefox: a later chunk past its storage limit: 3004 naming the limit, nothing of the import left, and room again afterwards', async () => {
  await withHarnessSession('firefox', options, async (session) => {
    await session.open(PAGE);
    await session.call('open');
    // 30 templates, 10 photos of 400 kB: ~4 MB of the 12 MB
    expect(await session.call<Outcome>('importing', 'kept', 30, 'old')).toEqual({ ok: true, templates: 30 });
    const kept = await session.call<string>('contents', 'kept');
    // 300 templates in 6 chunks of ~6.8 MB: the first fits, the second does not
    for (const gallery of ['fresh', 'kept']) await refusedForQuota(session, gallery, 300, 'new');
    expect(await session.call<string>('contents', 'fresh')).toBe('absent');
    expect(await session.call<string>('contents', 'kept')).toBe(kept);
    // what the failed chunks wrote is freed: an import of one chunk's size still fits
    expect(await session.call<Outcome>('importing', 'kept', 45, 'more')).toEqual({ ok: true, templates: 45 });
  });
}, 240_000);

test('firefox: a write of one transaction past its storage limit: 3004, nothing of it left (Firefox keeps what was queued after the refused request), and room again', async () => {
  await withHarnessSession('firefox', options, async (session) => {
    await session.open(PAGE);
    await session.call('open');
    // 8 MB of the 12 MB; then writes of 45 templates (one transaction of 15 photos, ~6 MB)
    expect(await session.call<Outcome>('importing', 'kept', 30, 'old')).toEqual({ ok: true, templates: 30 });
    expect(await session.call<Outcome>('importing', 'filler', 30, 'filler')).toEqual({ ok: true, templates: 30 });
    const kept = await session.call<string>('contents', 'kept');
    // a new gallery, and the subjects of 'kept' taking templates (their records rewritten, its last segment extended)
    await refusedForQuota(session, 'fresh', 45, 'new');
    await refusedForQuota(session, 'kept', 45, 'old');
    expect(await session.call<string>('contents', 'fresh')).toBe('absent');
    expect(await session.call<string>('contents', 'kept')).toBe(kept);
    expect(await session.call<Outcome>('importing', 'kept', 6, 'more')).toEqual({ ok: true, templates: 6 });
  });
}, 240_000);
