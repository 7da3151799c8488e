// What every screen owes its users: keyboard use, a name on every control, clear messages
// for bad files and a refused camera, and a layout that fits a phone.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, startApp, stopApp, type App } from './app.ts';
import { data } from './paths.ts';

const TABS = ['Detect & analyse', 'Galleries', 'Emotion video', 'Live', 'Developer'];

let browser: Browser;
let app: App;

beforeAll(async () => void ({ browser, app } = await startApp('pattern')));
afterAll(() => stopApp({ browser, app }));

/** Visible form controls of the shown panel without an accessible name. */
function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const panel = document.querySelector<HTMLElement>('[role=tabpanel]:not([hidden])')!;
    // hidden file inputs (tabindex -1) are opened by a named button; they are not controls of their own
    const visible = (el: HTMLElement) => el.offsetParent !== null && el.tabIndex !== -1;
    const named = (el: HTMLElement) => {
      if (el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')) return true;
      if ((el as HTMLInputElement).labels?.length) return true;
      return el.tagName === 'BUTTON' && (el.textContent ?? '').trim() !== '';
    };
    return [...panel.querySelectorAll<HTMLElement>('input, select, textarea, button')]
      .filter((el) => visible(el) && !named(el))
      .map((el) => el.outerHTML.slice(0, 120));
  });
}

describe('Quality', () => {
  test('tabs work from the keyboard and every control has a name', async () => {
    const { page } = app;
    // listening from the start: Playwright turns on file-chooser interception asynchronously,
    // and a chooser opened before that is a native dialog no event reports
    const chooserOpened = page.waitForEvent('filechooser', { timeout: 120_000 });
    await page.getByRole('tab', { name: TABS[0] }).focus();
    for (const name of TABS.slice(1)) {
      await page.keyboard.press('ArrowRight');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(name);
      expect(await page.getByRole('tab', { name }).getAttribute('aria-selected')).toBe('true');
      expect(await unnamedControls(page)).toEqual([]);
    }
    await page.keyboard.press('Home');
    expect(await page.getByRole('tab', { name: TABS[0] }).getAttribute('aria-selected')).toBe('true');
    expect(await unnamedControls(page)).toEqual([]);
    // the file chooser is reachable with Tab and opens with Enter
    const chooser = page.locator('#panel-detect').getByRole('button', { name: 'choose a file' });
    await chooser.focus();
    await page.keyboard.press('Enter');
    const fileChooser = await chooserOpened;
    await fileChooser.setFiles(data('faces/obama/obama.jpg'));
    await expect.poll(() => page.locator('#panel-detect .summary').textContent(), { timeout: 90_000 }).toMatch(/^1 face found in obama\.jpg/);
  });

  test.each([
    ['bad/not_an_image.jpg', /not a photo the engine can read \(use a JPEG, PNG, WebP, AVIF, GIF or BMP photo\)/],
    ['bad/truncated_header_only.png', /not a photo the engine can read/],
    ['bad/truncated_40pct.jpg', /error 5000/],
    ['bad/zero_bytes.jpg', /error \d{4}/],
  ])('a bad file (%s) gets a clear message', async (file, message) => {
    const { page } = app;
    await page.getByRole('tab', { name: TABS[0] }).click();
    const panel = page.locator('#panel-detect');
    await panel.getByLabel('Photo to analyse').locator('input[type=file]').setInputFiles(data(file));
    await expect.poll(() => panel.locator('.notice[role=alert]').textContent(), { timeout: 60_000 }).toMatch(message);
    expect(await panel.locator('.result').isHidden()).toBe(true);
    if (file.includes('not_an_image')) await app.screenshot('detect-bad-file');
  });

  test('a WebP phone photo (named .jpg) is analysed like any photo', async () => {
    const { page } = app;
    await page.getByRole('tab', { name: TABS[0] }).click();
    const panel = page.locator('#panel-detect');
    await panel.getByLabel('Photo to analyse').locator('input[type=file]').setInputFiles(data('bad/webp_with_jpg_extension.jpg'));
    await expect.poll(() => panel.locator('.summary').textContent(), { timeout: 90_000 }).toMatch(/^1 face found in webp_with_jpg_extension\.jpg/);
  });

  test('a refused camera is explained', async () => {
    const denied = await launchBrowser('denied');
    try {
      const other = await openApp(denied, { camera: 'denied' });
      const panel = other.page.locator('#panel-detect');
      await panel.getByRole('button', { name: 'Use webcam' }).click();
      await expect.poll(() => panel.locator('.notice').textContent(), { timeout: 30_000 }).toContain('Camera access was denied');
      expect(await panel.getByRole('button', { name: 'Use webcam' }).isVisible()).toBe(true);
      await other.screenshot('camera-denied');
      await other.close();
    } finally {
      await denied.close();
    }
  });

  test('every screen fits a phone (390 px) without sideways scrolling', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [i, name] of TABS.entries()) {
      await page.getByRole('tab', { name }).click();
      await app.screenshot(`phone-${i + 1}-${name.split(' ')[0]!.toLowerCase()}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, name).toBeLessThanOrEqual(0);
    }
    expect(app.errors).toEqual([]);
  });
});
