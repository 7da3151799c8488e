// Live, driven like a user: the fake webcam (Chromium's --use-file-for-fake-video-capture,
// a clip of a shared photo of Obama) through the Live screen, which runs engine.watch():
// the six emotions over the video, then the person's name once a gallery is chosen, and the
// measured results per second on screen.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type App } from './app.ts';
import { data } from './paths.ts';

const panel = (page: Page) => page.locator('#panel-live');
let browser: Browser;
let app: App;

beforeAll(async () => void ({ browser, app } = await startApp('face', { path: '/#live' })));
afterAll(() => stopApp({ browser, app }));

/** POST /enroll through the page's own Kairos shim, as any client of the page would. */
async function enroll(page: Page, gallery: string, subject: string, photo: string): Promise<unknown> {
  const image = readFileSync(data(photo)).toString('base64');
  return page.evaluate(
    async ({ image, gallery, subject }) => {
      const r = await fetch('https://api.kairos.com/enroll', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', app_id: 'demo', app_key: 'demo' },
        body: JSON.stringify({ image, subject_id: subject, gallery_name: gallery }),
      });
      return r.json();
    },
    { image, gallery, subject },
  );
}

describe('Live', () => {
  test('the webcam with the six emotions over each face and the measured rate', async () => {
    const { page } = app;
    await panel(page).getByRole('button', { name: 'Start live view' }).click();
    const rate = panel(page).locator('.live-rate');
    await expect.poll(() => rate.textContent(), { timeout: 90_000 }).toMatch(/^[1-9]\d* results\/s · latency \d+ ms · \d+ frames dropped$/);
    const face = panel(page).locator('.live-faces li').first();
    await expect.poll(() => face.textContent(), { timeout: 30_000 }).toMatch(/^Face #\d+ — Anger \d+ · Disgust \d+ · Fear \d+ · Joy \d+ · Sadness \d+ · Surprise \d+$/);
    // the overlay is drawn at the video's size
    const size = await panel(page).locator('canvas.live-overlay').evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
    expect(size).toEqual([640, 480]);
    await app.screenshot('live-emotions');
    await panel(page).getByRole('button', { name: 'Stop live view' }).click();
    expect(await panel(page).locator('.live').isHidden()).toBe(true);
  });

  test('with a gallery: the enrolled person is named on the video', async () => {
    const { page } = app;
    expect(await enroll(page, 'live-e2e', 'obama', 'faces/obama/obama2.jpg')).toHaveProperty('images');
    // the gallery list is read when the screen is shown
    await page.getByRole('tab', { name: 'Galleries' }).click();
    await page.getByRole('tab', { name: 'Live' }).click();
    await panel(page).getByLabel('Recognise people of').selectOption('live-e2e');
    await panel(page).getByRole('button', { name: 'Start live view' }).click();
    await expect.poll(() => panel(page).locator('.live-who').first().textContent(), { timeout: 90_000 }).toBe('obama');
    await expect.poll(async () => Number(await panel(page).locator('.live-rate').getAttribute('data-fps')), { timeout: 30_000 }).toBeGreaterThan(0);
    await app.screenshot('live-recognition');
    await panel(page).getByRole('button', { name: 'Stop live view' }).click();
    expect(app.errors).toEqual([]);
  });
});
