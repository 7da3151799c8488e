// One harness call on a new page of a given browser context (benches open a fresh context per
// cold start): navigate, wait for the page's harness, call one registered function. An uncaught
// page error or a crash fails the call at once instead of waiting out the timeout.
import type { BrowserContext, Page } from 'playwright-core';
import { withTimeout } from './browser-session.ts';
import type {} from './page.ts'; // declares globalThis.__harness for the evaluate callbacks

export interface PageCallOptions {
  timeoutMs: number;
  /** sees the page before it navigates (e.g. to watch its dev-server websocket) */
  onPage?: (page: Page) => void;
  /** fail unless the page is cross-origin isolated (WASM threads need it) */
  requireIsolation?: boolean;
}

export async function callOnNewPage<R>(context: BrowserContext, baseUrl: string, path: string, fn: string, options: PageCallOptions): Promise<R> {
  const page = await context.newPage();
  options.onPage?.(page);
  const failure = new Promise<never>((_, reject) => {
    page.on('pageerror', (error) => reject(new Error(`uncaught error in ${path}: ${error.message}`)));
    page.on('crash', () => reject(new Error(`${path} crashed`)));
  });
  failure.catch(() => {}); // observed through the race below
  const run = (async () => {
    const response = await page.goto(new URL(path, baseUrl).href, { waitUntil: 'load' });
    if (!response?.ok()) throw new Error(`opening ${path}: HTTP ${response?.status() ?? 'no response'}`);
    await page.waitForFunction(() => globalThis.__harness !== undefined);
    if (options.requireIsolation && !(await page.evaluate(() => globalThis.crossOriginIsolated))) throw new Error(`${path} is not cross-origin isolated`);
    // a string expression: tsx's __name helper must not leak into the page
    return (await page.evaluate(`globalThis.__harness.fns[${JSON.stringify(fn)}]()`)) as R;
  })();
  return withTimeout(Promise.race([run, failure]), options.timeoutMs, `${path} → ${fn}()`);
}
