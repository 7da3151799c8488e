// Nothing lost, nothing resurrected: a tab crashed at every step of an enroll, a subject's
// removal and a gallery's removal — its gallery transaction open (uncommitted), committed but
// the push not sent, the push committed on the service but its reply lost, the reply in but the
// outbox's delete uncommitted — then reopened. A second device on the same service (real
// PostgreSQL) and the reopened tab must end with the same templates as the service's live rows:
// the enroll there exactly when it committed, the removed subject or gallery gone everywhere
// exactly when the removal committed, and never back.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type Client, type Pages, type World } from './helpers/pages.ts';
import { ROOT, type Service } from './helpers/service.ts';

const OBAMA = readFileSync(path.resolve(ROOT, '../shared/data/faces/obama/obama.jpg')).toString('base64');
const APP = { id: 'crash-team', key: 'crash-team-key' };
const STEPS = ['transaction', 'push', 'reply', 'ack'] as const;
type Step = (typeof STEPS)[number];

let service: Service;
let pages: Pages;
let context: BrowserContext;
let b: Client;
const sync = () => ({ url: service.url, appId: APP.id, appKey: APP.key });

let world: World | undefined;
beforeAll(async () => {
  ({ service, pages } = world = await startWorld(APP));
  // device A: one context (its IndexedDB outlives a crashed tab, as a profile's does); B: another
  context = await pages.browser.newContext();
  await context.exposeBinding('crashPoint', ({ page }) => crash(page));
  b = await pages.open(sync());
}, 180_000);

afterAll(async () => {
  await context?.close().catch(() => {});
  await world?.close();
});

/** Kills the tab's renderer (what an out-of-memory kill or a crash does). */
async function crash(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  void cdp.send('Page.crash').catch(() => {});
}

/** Runs `op` in tab `a` and crashes the tab at `step`; resolves once it is dead. */
async function crashDuring(a: Client, step: Step, op: () => Promise<unknown>): Promise<void> {
  const dead = new Promise<void>((resolve) => a.page.once('crash', () => resolve()));
  const push = `${service.url}/v1/push`;
  if (step === 'transaction' || step === 'ack') await a.call('armCrash', step);
  else {
    await context.route(push, async (route) => {
      await context.unroute(push);
      if (step === 'reply') await route.fetch(); // the service commits it; the tab never hears back
      await crash(a.page);
    });
  }
  void op().catch(() => {}); // dies with the tab
  await dead;
  await context.unroute(push).catch(() => {});
  await a.page.close().catch(() => {});
}

const live = async (gallery: string) =>
  (await service.pool.query<{ template_id: string }>('select template_id from templates where app_id = $1 and gallery = $2 and removed_seq is null order by template_id', [APP.id, gallery])).rows.map((r) => r.template_id);

/** Device A (reopened) and B synced; A, B and the service agree on `gallery`: its template ids. */
async function converged(a: Client, gallery: string): Promise<string[]> {
  await a.call('syncNow');
  await b.call('syncNow');
  const [inA, inB, onService] = await Promise.all([a.call<string[]>('templateIds', gallery), b.call<string[]>('templateIds', gallery), live(gallery)]);
  expect(inA).toEqual(onService);
  expect(inB).toEqual(onService);
  expect((await a.call<{ pending: number }>('status')).pending).toBe(0);
  return onService;
}

/** Opens device A with `gallery` holding subjects `keep` and `gone` (enrolled by B) on every device; their ids. */
async function seeded(gallery: string, subjects = ['keep', 'gone']): Promise<{ a: Client; before: string[] }> {
  for (const subject of subjects) await b.call('enroll', gallery, subject, OBAMA);
  await b.call('syncNow');
  const a = await pages.open(sync(), context);
  return { a, before: await converged(a, gallery) };
}

/** Reopens device A after the crash; `check` gets the converged ids; A closes after. */
async function afterCrash(gallery: string, check: (ids: string[], a: Client) => Promise<void>): Promise<void> {
  const a = await pages.open(sync(), context);
  try {
    await check(await converged(a, gallery), a);
  } finally {
    await a.page.close();
  }
}

describe('a tab crashed at every step', () => {
  it.each(STEPS)('of an enroll (%s): the template is on every device exactly when its transaction committed', async (step) => {
    const gallery = `enroll-${step}`;
    const { a, before } = await seeded(gallery, ['keep']);
    await a.call('enroll', 'warm-up', 'w', OBAMA); // models loaded, so the crash hits the step, not a model load
    await a.call('syncNow');
    await crashDuring(a, step, () => a.call('enroll', gallery, 'new', OBAMA));
    await afterCrash(gallery, async (after) => expect(after.length).toBe(before.length + (step === 'transaction' ? 0 : 1)));
  });

  it.each(STEPS)('of a subject removal (%s): gone from every device exactly when it committed, and it stays gone', async (step) => {
    const gallery = `subject-${step}`;
    const { a, before } = await seeded(gallery);
    await crashDuring(a, step, () => a.call('removeSubject', gallery, 'gone'));
    await afterCrash(gallery, async (after, reopened) => {
      expect(after.length).toBe(step === 'transaction' ? before.length : before.length - 1);
      // another round: nothing comes back from anywhere
      expect(await converged(reopened, gallery)).toEqual(after);
    });
  });

  it.each(STEPS)('of a gallery removal (%s): gone from every device exactly when it committed', async (step) => {
    const gallery = `gallery-${step}`;
    const { a, before } = await seeded(gallery);
    await crashDuring(a, step, () => a.call('removeGallery', gallery));
    await afterCrash(gallery, async (after) => expect(after).toEqual(step === 'transaction' ? before : []));
  });
});
