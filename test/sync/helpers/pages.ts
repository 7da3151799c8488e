// Real Chromium pages running test/sync/page (the engine with sync on), served by vite, for the
// sync tests that drive browsers: open one per "device" (a browser context of its own).
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { chromiumArgs, chromiumPath } from '../../../tools/browser-env.ts';
import { ROOT, freshDatabase, startService, type Service } from './service.ts';

export interface Client {
  context: BrowserContext;
  page: Page;
  call<T>(name: string, ...args: unknown[]): Promise<T>;
}

export interface Pages {
  browser: Browser;
  /** a new page in `context` (default: a new context, i.e. a new device) with the engine started by `start(sync)` */
  open(sync: unknown, context?: BrowserContext): Promise<Client>;
  close(): Promise<void>;
}

/** polls `probe` every 50 ms until it returns true; the ms it took */
export async function until(probe: () => Promise<boolean>, limitMs: number, what: string): Promise<number> {
  const began = performance.now();
  while (!(await probe())) {
    if (performance.now() - began > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - began;
}

/** vite's dev server on the project (COOP/COEP, /ort/), pre-bundling what `entry` (a project path) imports; its origin */
export async function startDevServer(entry: string): Promise<{ vite: ViteDevServer; origin: string }> {
  const vite = await createServer({
    configFile: path.join(ROOT, 'vite.config.ts'),
    root: ROOT,
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false },
    optimizeDeps: { entries: [entry] },
  });
  await vite.listen();
  const address = vite.httpServer!.address();
  if (!address || typeof address === 'string') throw new Error('no vite address');
  return { vite, origin: `http://127.0.0.1:${address.port}` };
}

export async function startPages(): Promise<Pages> {
  const { vite, origin } = await startDevServer('test/sync/page/index.html');
  const pageUrl = `${origin}/test/sync/page/index.html`;
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async open(sync, existing) {
      const context = existing ?? (await browser.newContext());
      if (!existing) contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error('page error:', e.message));
      await page.goto(pageUrl);
      await page.waitForFunction(() => 'syncTest' in globalThis, undefined, { timeout: 120_000 });
      const call = <T>(name: string, ...args: unknown[]) =>
        page.evaluate(([n, a]) => (globalThis as unknown as Record<string, Record<string, (...x: unknown[]) => unknown>>).syncTest![n as string]!(...(a as unknown[])), [name, args] as const) as Promise<T>;
      await call('start', sync);
      return { context, page, call };
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      await vite.close();
    },
  };
}

export interface World {
  service: Service;
  /** the fresh database the service runs on (for a test that starts more service processes on it) */
  databaseUrl: string;
  pages: Pages;
  close(): Promise<void>;
}

/** A fresh database with one app, a service on it, and the pages: what the browser sync tests start from. */
export async function startWorld(app: { id: string; key: string }): Promise<World> {
  const databaseUrl = await freshDatabase();
  const service = await startService(databaseUrl, { apps: { [app.id]: app.key } });
  const pages = await startPages();
  return {
    service,
    databaseUrl,
    pages,
    close: async () => {
      await pages.close();
      await service.close();
    },
  };
}
