// Drives the built demo page in Debian's Chromium: one browser per test file, a fresh
// context (empty IndexedDB) per app, fake webcam from a shared photo, screenshots of
// each screen under test-results/screenshots/.
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { chromiumArgs, chromiumPath } from '../../tools/browser-env.ts';
import { SCREENSHOT_DIR } from './paths.ts';

/** face: a fake webcam showing a face; pattern: Chromium's test pattern; denied: camera requests refused */
export type Camera = 'face' | 'pattern' | 'denied';

export async function launchBrowser(camera: Camera = 'face'): Promise<Browser> {
  const args = [...chromiumArgs, '--use-fake-device-for-media-stream'];
  // without the fake UI, headless Chromium refuses the permission prompt
  if (camera !== 'denied') args.push('--use-fake-ui-for-media-stream');
  if (camera === 'face') args.push(`--use-file-for-fake-video-capture=${inject('cameraClip')}`);
  return chromium.launch({ executablePath: chromiumPath, args, timeout: 60_000 });
}

export interface App {
  context: BrowserContext;
  page: Page;
  /** errors the page threw or logged (a flow that works logs none) */
  errors: string[];
  /** saves a full-page screenshot as test-results/screenshots/<name>.png */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** viewport; default 1280×800 */
  viewport?: { width: number; height: number };
  /** path and hash to open, default '/' */
  path?: string;
  /** the site's URL, default the suite's build (inject('baseUrl')) */
  baseUrl?: string;
  /** camera permission granted (default) or refused */
  camera?: 'granted' | 'denied';
}

export async function openApp(browser: Browser, options: OpenOptions = {}): Promise<App> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    permissions: options.camera === 'denied' ? [] : ['camera', 'microphone'],
  });
  context.setDefaultTimeout(90_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto((options.baseUrl ?? inject('baseUrl')) + (options.path ?? '/'));
  await page.locator('body[data-engine="ready"]').waitFor({ timeout: 90_000 });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    page,
    errors,
    screenshot: async (name) => {
      await page.screenshot({ path: resolve(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
    close: () => context.close(),
  };
}

/** Pastes a file the way a clipboard paste arrives: a paste event carrying it, at the focused element. */
export async function pasteFile(page: Page, path: string, type: string): Promise<void> {
  const file = { base64: readFileSync(path).toString('base64'), name: basename(path), type };
  await page.evaluate(({ base64, name, type }) => {
    const data = new DataTransfer();
    data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type }));
    const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
    (document.activeElement ?? document.body).dispatchEvent(event);
  }, file);
}

/** One browser and one app for a test file (beforeAll): `({ browser, app } = await startApp('face'))`. */
export async function startApp(camera: Camera, options: OpenOptions = {}): Promise<{ browser: Browser; app: App }> {
  const browser = await launchBrowser(camera);
  try {
    return { browser, app: await openApp(browser, options) };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/** Closes what startApp() opened (afterAll); safe when it failed half way. */
export async function stopApp(opened: { browser?: Browser; app?: App }): Promise<void> {
  await opened.app?.close();
  await opened.browser?.close();
}
