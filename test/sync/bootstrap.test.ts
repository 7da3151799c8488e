// A new device joining a team gallery, killed part-way: one sync service on real PostgreSQL
// holding 2500 templates (three pull pages), a fresh Chromium profile whose page is closed
// after the first page of the pull was applied and before the last, then the same profile
// opened again: the pull resumes from its cursor and the device ends with exactly the
// service's templates, no more, no fewer. (The time a 100k gallery takes: bench:sync --bootstrap.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SyncStatus } from '../../src/sync/index.ts';
import { PushResponseSchema } from '../../src/sync/protocol.ts';
import { startWorld, type Client, type Pages, type World } from './helpers/pages.ts';
import type { Service } from './helpers/service.ts';
import { enroll } from './helpers/templates.ts';

const APP = { id: 'team', key: 'team-key-123' };
const TEMPLATES = 2500;

let service: Service;
let pages: Pages;
let world: World | undefined;

beforeAll(async () => {
  ({ service, pages } = world = await startWorld(APP));
}, 180_000);
afterAll(() => world?.close());

it('a bootstrap killed part-way resumes where it stopped and ends with exactly the service’s templates', async () => {
  const pushed: string[] = [];
  const seqs: number[] = [];
  let last = 0;
  for (let from = 0; from < TEMPLATES; from += 256) {
    const changes = Array.from({ length: Math.min(256, TEMPLATES - from) }, (_, i) => enroll('team', `subject-${Math.floor((from + i) / 5)}`));
    const response = await fetch(`${service.url}/v1/push`, {
      method: 'POST',
      headers: { app_id: APP.id, app_key: APP.key, 'content-type': 'application/json' },
      body: JSON.stringify({ changes }),
    });
    for (const r of PushResponseSchema.parse(await response.json()).results) {
      expect(r.status).toBe('accepted');
      if (r.status === 'accepted') seqs.push(r.seq);
      if (r.status === 'accepted') last = Math.max(last, Number(r.seq));
    }
    pushed.push(...changes.map((c) => c.template_id));
  }

  const context = await pages.browser.newContext(); // one profile for both pages
  try {
    const first = await pages.open({ url: service.url, appId: APP.id, appKey: APP.key }, context);
    // kill the page once a first pull page is in, before the last
    let cursor = 0;
    const began = Date.now();
    while (cursor < 1000) {
      cursor = Number((await first.call<SyncStatus>('status')).cursor);
      if (Date.now() - began > 60_000) throw new Error(`no pull page applied within 60 s (cursor ${cursor})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.page.close();
    expect(cursor).toBeLessThan(last);

    const second = await pages.open({ url: service.url, appId: APP.id, appKey: APP.key }, context);
    const resumedAt = Number((await second.call<SyncStatus>('status')).cursor);
    expect(resumedAt).toBeGreaterThanOrEqual(cursor); // from where it stopped, not from 0
    // its progress counts what was left: every change after the cursor it resumed from
    const resumed = await pullToEnd(second, 'the resumed pull');
    expect(resumed.map((p) => p.total)).toContain(seqs.filter((seq) => seq > resumedAt).length);
    expect(await second.call<string[]>('templateIds', 'team')).toEqual([...pushed].sort());

    // every page again (its import finds its ids here and falls back to looking them up):
    // nothing twice, and nothing sent back (the pulled ids are known to be the service's)
    let pushes = 0;
    second.page.on('request', (request) => void (request.url().includes('/v1/push') && pushes++));
    await second.call('rewindPull', { url: service.url, appId: APP.id, appKey: APP.key });
    const rewound = await pullToEnd(second, 'the rewound pull');
    expect(rewound.filter((p) => p.phase === 'pulling' && p.total === TEMPLATES && p.pulled > 0 && p.pulled < TEMPLATES).length).toBeGreaterThan(0);
    expect(await second.call<string[]>('templateIds', 'team')).toEqual([...pushed].sort());
    expect(pushes).toBe(0);
  } finally {
    await context.close();
  }

  /** waits until the page has pulled to the last change and is idle; the distinct progress values it showed meanwhile */
  async function pullToEnd(client: Client, what: string): Promise<SyncStatus['progress'][]> {
    const seen = new Map<string, SyncStatus['progress']>();
    const began = Date.now();
    for (;;) {
      const status = await client.call<SyncStatus>('status');
      if (Number(status.cursor) >= last && status.state === 'idle') {
        for (const progress of await client.call<SyncStatus['progress'][]>('progressSeen')) seen.set(JSON.stringify(progress), progress);
        return [...seen.values()];
      }
      if (Date.now() - began > 90_000) throw new Error(`${what} did not reach the last change within 90 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
});
