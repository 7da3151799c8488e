// Detect & analyse, driven like a user: pick a photo, see faces marked and a card per face
// with attributes and emotions; webcam snapshot; errors for a photo without faces and a
// corrupt file; the developer panel shows the exact request and response.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { pasteFile, startApp, stopApp, type App } from './app.ts';
import { data } from './paths.ts';

const panel = (page: Page) => page.locator('#panel-detect');

let browser: Browser;
let app: App;

beforeAll(async () => void ({ browser, app } = await startApp('face')));
afterAll(() => stopApp({ browser, app }));

describe('Detect & analyse', () => {
  test('a group photo: every face boxed, one card per face with attributes and emotions', async () => {
    const { page } = app;
    await page.getByLabel('Photo to analyse').locator('input[type=file]').setInputFiles(data('groups/two_people.jpg'));
    await expect.poll(() => panel(page).locator('.summary').textContent(), { timeout: 90_000 }).toMatch(/^2 faces found in two_people\.jpg/);
    const cards = panel(page).locator('.face-card');
    expect(await cards.count()).toBe(2);
    const first = cards.first();
    await expect.poll(() => first.textContent()).toMatch(/Age.*about \d+/);
    expect(await first.textContent()).toMatch(/Gender(male|female) \(\d+%\)/);
    // four measured ethnicity fractions, quality, confidence and the six emotions as meters;
    // hispanic (no model measures it) is said to be not measured, never drawn as 0 %
    expect(await first.locator('[role=meter]').count()).toBeGreaterThanOrEqual(4 + 2 + 6);
    expect(await first.getByRole('meter', { name: 'hispanic' }).count()).toBe(0);
    expect(await first.textContent()).toContain('hispanicnot measured');
    expect(await first.getByRole('meter', { name: 'joy' }).getAttribute('aria-valuenow')).toMatch(/^\d+$/);
    await app.screenshot('detect-group');
  });

  test('a photo without a face says so', async () => {
    const { page } = app;
    const negative = (await import('node:fs')).readdirSync(data('negatives')).find((f) => /\.(jpe?g|png)$/i.test(f))!;
    await page.getByLabel('Photo to analyse').locator('input[type=file]').setInputFiles(data(`negatives/${negative}`));
    await expect.poll(() => panel(page).locator('.notice').textContent(), { timeout: 90_000 }).toContain('No face found in this photo');
    expect(await panel(page).locator('.result').isHidden()).toBe(true);
    await app.screenshot('detect-no-face');
  });

  test('a webcam snapshot is analysed like a photo', async () => {
    const { page } = app;
    await panel(page).getByRole('button', { name: 'Use webcam' }).click();
    await panel(page).getByRole('button', { name: 'Take photo' }).click();
    await expect.poll(() => panel(page).locator('.summary').textContent(), { timeout: 90_000 }).toMatch(/^1 face found in webcam-\d+\.jpg/);
    await app.screenshot('detect-webcam');
    await panel(page).getByRole('button', { name: 'Close camera' }).click();
  });

  test('a pasted photo with Liveness on: the card shows liveness, the request asks for it', async () => {
    const { page } = app;
    await panel(page).getByRole('checkbox', { name: 'Liveness' }).check();
    await pasteFile(page, data('faces/obama/obama2.jpg'), 'image/jpeg');
    await expect.poll(() => panel(page).locator('.summary').textContent(), { timeout: 90_000 }).toMatch(/^1 face found in obama2\.jpg/);
    const liveness = panel(page).locator('.face-card').first().getByRole('meter', { name: 'Liveness' });
    expect(Number(await liveness.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(0);
    expect(await panel(page).locator('.face-card').first().textContent()).toMatch(/Liveness[01]\.\d\d \((live|possible spoof)\)/);
    const request = page.locator('#panel-developer .exchange').filter({ hasText: 'POST /detect' }).first().locator('pre').first();
    expect(JSON.parse((await request.textContent())!).body.selector).toBe('FRONTAL,liveness');
    await app.screenshot('detect-liveness');
    await panel(page).getByRole('checkbox', { name: 'Liveness' }).uncheck();
  });

  test('the developer panel shows the exact request and response', async () => {
    const { page } = app;
    await page.getByRole('tab', { name: 'Developer' }).click();
    const exchanges = page.locator('.exchange');
    expect(await exchanges.count()).toBeGreaterThanOrEqual(3);
    // the first /detect of this page (the group photo) is the oldest: the log is newest first
    const detect = exchanges.filter({ hasText: 'POST /detect' }).last();
    await detect.locator('summary').click();
    const [request, response] = await detect.locator('pre').allTextContents();
    expect(JSON.parse(request!)).toMatchObject({ url: 'https://api.kairos.com/detect', headers: { app_id: 'demo', app_key: 'demo' } });
    expect(JSON.parse(response!).images[0].faces[0]).toHaveProperty('attributes.age');
    expect(await page.locator('#panel-developer').textContent()).toMatch(/Backend.*WASM, \d+ threads?/);
    await app.screenshot('developer');
    expect(app.errors).toEqual([]);
  });
});
