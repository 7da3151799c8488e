// The demo's sync progress bar (src/demo/galleries/sync-badge.ts) during a new device's
// bootstrap: a sync service on real PostgreSQL holding 2500 templates (three pull pages), the
// demo page (vite dev server, Chromium) given the service in its "Team sync" form as a user
// would, and every state the sync line shows recorded as it changes (a MutationObserver: a poll
// could miss a page). While the pull has pages to go the bar shows pulled of total; once in,
// it hides.
import { chromium, type Browser } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PushResponseSchema } from '../../src/sync/protocol.ts';
import { chromiumArgs, chromiumPath } from '../../tools/browser-env.ts';
import { startDevServer, until } from './helpers/pages.ts';
import { freshDatabase, startService, type Service } from './helpers/service.ts';
import { enroll } from './helpers/templates.ts';

const APP = { id: 'front-desk', key: 'front-desk-key-123' };
const TEMPLATES = 2500;

interface LineState {
  hidden: boolean;
  value: number;
  max: number;
  text: string;
  state: string;
}

let service: Service;
let vite: ViteDevServer;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  service = await startService(await freshDatabase(), { apps: { [APP.id]: APP.key } });
  ({ vite, origin } = await startDevServer('index.html'));
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await vite?.close();
  await service?.close();
});

it('the Galleries screen shows the bootstrap pull’s progress (pulled of total) and hides it once the pull is in', async () => {
  for (let from = 0; from < TEMPLATES; from += 256) {
    const changes = Array.from({ length: Math.min(256, TEMPLATES - from) }, (_, i) => enroll('team', `subject-${Math.floor((from + i) / 5)}`));
    const response = await fetch(`${service.url}/v1/push`, { method: 'POST', headers: { app_id: APP.id, app_key: APP.key, 'content-type': 'application/json' }, body: JSON.stringify({ changes }) });
    expect(PushResponseSchema.parse(await response.json()).results.every((r) => r.status === 'accepted')).toBe(true);
  }

  const page = await (await browser.newContext()).newPage();
  page.on('pageerror', (e) => console.error('demo page error:', e.message));
  // every state of the sync line, in order, from the page's first script on (each load)
  await page.addInitScript(() => {
    const seen: unknown[] = [];
    (globalThis as unknown as { syncLine: unknown[] }).syncLine = seen;
    new MutationObserver(() => {
      const bar = document.querySelector<HTMLProgressElement>('[data-testid=sync-progress]');
      const line = document.querySelector<HTMLElement>('[data-testid=sync-status]');
      if (!bar || !line) return;
      const state = { hidden: bar.hidden, value: bar.value, max: bar.max, text: line.textContent, state: line.dataset.syncState };
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(state)) seen.push(state);
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.goto(`${origin}/#galleries`);
  await page.locator('body[data-engine="ready"]').waitFor({ timeout: 90_000 });

  // the user connects this fresh device to the team: the page restarts with sync on and pulls
  const form = page.getByTestId('sync-settings');
  await form.locator('[name=sync_url]').fill(service.url);
  await form.locator('[name=sync_app_id]').fill(APP.id);
  await form.locator('[name=sync_app_key]').fill(APP.key);
  await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name: 'Connect' }).click()]);
  const seen = () => page.evaluate(() => (globalThis as unknown as { syncLine: LineState[] }).syncLine);
  await until(async () => (await seen()).some((s) => s.state === 'idle' && /last synced/.test(s.text) && !/pulling/.test(s.text)), 60_000, 'the pull to end');

  const states = await seen();
  const shown = states.filter((s) => !s.hidden);
  expect(shown.length, JSON.stringify(states)).toBeGreaterThan(0);
  for (const s of shown) {
    expect(s.max).toBe(TEMPLATES);
    expect(s.value).toBeGreaterThan(0);
    expect(s.value).toBeLessThan(TEMPLATES);
    expect(s.text).toContain(`pulling ${s.value} of ${TEMPLATES} changes`);
  }
  // growing, then gone once everything is in
  expect(shown.map((s) => s.value)).toEqual([...shown.map((s) => s.value)].sort((a, b) => a - b));
  expect(states.at(-1)).toMatchObject({ hidden: true, state: 'idle', text: expect.stringContaining('· team') });
}, 150_000);
