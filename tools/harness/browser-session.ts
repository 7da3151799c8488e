// Node side of the browser harness, shared by bench, eval and e2e scripts: serves this
// project with vite's dev server (the project's vite.config.ts, so COOP/COEP and /ort/
// apply), or a production build of given pages (`builtPages`), drives Debian's Chromium through playwright-core, and calls functions a page
// registered with tools/harness/page.ts. Everything is torn down on close, errors,
// timeouts and Ctrl-C.
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { createServer, type Plugin } from 'vite';
import { chromiumArgs, chromiumPath, crossOriginIsolationHeaders } from '../browser-env.ts';
import { serveBuiltSite } from './built-site.ts';
import { sendFile } from './static-server.ts';
import type {} from './page.ts'; // declares globalThis.__harness for the evaluate callbacks

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface BrowserSessionOptions {
  /** Forward the page's and its workers' console output (and page errors) to stdout. */
  console?: boolean;
  /** Limit for starting and for each open(), in ms (default 60 s); also Playwright's default. */
  timeoutMs?: number;
  /** Limit for each call(), in ms (default 120 s). */
  callTimeoutMs?: number;
  /** Fail open() unless the page is cross-origin isolated (default true: ORT threads need it). */
  requireIsolation?: boolean;
  /** Reject pending and later calls when the page throws an uncaught error (default true). */
  failOnPageError?: boolean;
  /** Extra Chromium flags, after the shared ones from tools/browser-env.ts. */
  extraArgs?: string[];
  /**
   * Serve a production build of these pages (project paths, e.g. '/tools/bench/pages/detect.html')
   * with `vite preview` instead of the dev server: bundled, as `npm run demo` serves the app.
   */
  builtPages?: string[];
  /**
   * Dev server only: the pages whose imports vite pre-bundles at start (project paths),
   * instead of every .html in the project. Avoids a mid-run reload when a page's dependency
   * is found late, e.g. because the scan of another page failed.
   */
  optimizeEntries?: string[];
  /**
   * Dev server only: project paths under which files are sent as they are on disk (what a static
   * server or CDN gives), not through vite's transforms, which add an inline source map several
   * times the size of a minified bundle to every script (e.g. '/dist/lib/' or one file).
   */
  staticPaths?: string[];
  /**
   * Run in this on-disk profile folder (created if missing) instead of a fresh off-the-record
   * context: Playwright's new contexts keep IndexedDB in memory (measured: a 700k-template
   * gallery is refused there as QuotaExceededError at 1.45 GB of a 12 GB quota), a real user's
   * profile keeps it on disk. The caller removes the folder.
   */
  profileDir?: string;
}

/** The server behind a session: the dev server or a served build. */
export interface Served {
  baseUrl: string;
  close(): Promise<void>;
}

export interface BrowserSession {
  /** e.g. http://127.0.0.1:41234 (no trailing slash) */
  readonly baseUrl: string;
  readonly browser: Browser;
  /** e.g. "156.0.7000.0" (the user agent with profileDir when Playwright has no Browser for it) */
  readonly browserVersion: string;
  /** escape hatch for e2e tests (clicks, screenshots); bench/eval should only need call() */
  readonly page: Page;
  /** Navigates to a project path (e.g. '/tools/bench/pages/models.html') and waits for expose(). */
  open(path: string): Promise<void>;
  /** Calls a function the page exposed; args and result must be structured-cloneable. */
  call<R = unknown>(name: string, ...args: unknown[]): Promise<R>;
  /** Idempotent; never throws. After a page error, crash or failed script load the session
   * only rejects; close it. */
  close(): Promise<void>;
}

/** Rejects with a readable error when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A vite plugin that sends files under `prefixes` as they are on disk (tools/harness/static-server.ts), with the cross-origin isolation headers. */
function staticFiles(prefixes: readonly string[]): Plugin {
  return {
    name: 'harness-static-files',
    configureServer(server) {
      // registered here (not returned) so it runs before vite's transform middleware
      server.middlewares.use((req, res, next) => {
        const path = decodeURIComponent((req.url ?? '').split('?')[0]!);
        if (!prefixes.some((p) => path.startsWith(p)) || !sendFile(req, res, projectRoot.replace(/\/$/, ''), path, crossOriginIsolationHeaders)) next();
      });
    },
  };
}

/**
 * A vite plugin that drops COOP/COEP from every response: the page as a site without those
 * headers serves it (not cross-origin isolated: no SharedArrayBuffer, so one WASM thread).
 */
function withoutIsolation(): Plugin {
  const isolationHeader = (name: string) => /^cross-origin-(opener|embedder)-policy$/i.test(name);
  return {
    name: 'harness-no-isolation',
    configureServer(server) {
      server.middlewares.use((_req, res, next) => {
        const setHeader = res.setHeader.bind(res);
        res.setHeader = (name: string, value: number | string | readonly string[]) => (isolationHeader(name) ? res : setHeader(name, value));
        const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
        res.writeHead = ((status: number, ...rest: unknown[]) => {
          const headers = rest.find((r) => r && typeof r === 'object') as Record<string, unknown> | undefined;
          if (headers) for (const k of Object.keys(headers)) if (isolationHeader(k)) delete headers[k];
          return writeHead(status, ...rest);
        }) as typeof res.writeHead;
        next();
      });
    },
  };
}

/** Vite's dev server for the project on an ephemeral port, for drivers other than this module's Chromium (tools/harness/browsers.ts). */
export function serveDev(options: { optimizeEntries?: string[]; staticPaths?: readonly string[]; isolation?: boolean } = {}): Promise<Served> {
  return startViteDevServer(options.optimizeEntries, options.staticPaths, options.isolation ?? true);
}

async function startViteDevServer(optimizeEntries?: string[], staticPaths: readonly string[] = [], isolation = true): Promise<Served> {
  const server = await createServer({
    configFile: resolve(projectRoot, 'vite.config.ts'),
    root: projectRoot,
    logLevel: 'warn',
    clearScreen: false,
    // own optimizer cache per process: a concurrent dev server, vitest run or another harness
    // re-optimising a shared cache makes vite reload our page mid-run
    cacheDir: resolve(projectRoot, `node_modules/.vite/harness-${process.pid}`),
    ...(optimizeEntries ? { optimizeDeps: { entries: optimizeEntries.map((p) => p.replace(/^\/+/, '')) } } : {}),
    server: {
      host: '127.0.0.1',
      port: 0, // ephemeral: several sessions (and a dev server) may run at once
      strictPort: true,
    },
    // no file watching: an edit elsewhere in the tree must not reload a page mid-measurement
    // (the HMR socket stays: vite's client logs errors without it). Set after config merging,
    // because mergeConfig drops a `watch: null` given inline.
    plugins: [
      { name: 'harness-no-watch', configResolved: (config) => void (config.server.watch = null) },
      // first, so it sees every response, the static files' too
      ...(isolation ? [] : [withoutIsolation()]),
      ...(staticPaths.length ? [staticFiles(staticPaths)] : []),
    ],
  });
  try {
    await server.listen();
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('vite dev server has no TCP address');
    return {
      baseUrl: `http://127.0.0.1:${address.port}`,
      async close() {
        await server.close();
        rmSync(server.config.cacheDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server.close().catch(() => {});
    throw error;
  }
}

function consoleLine(msg: ConsoleMessage): string {
  const worker = msg.worker();
  const from = worker ? `worker ${worker.url().split('/').pop()?.split('?')[0]}` : 'page';
  return `[${from}] ${msg.type()}: ${msg.text()}`;
}

export async function startBrowserSession(options: BrowserSessionOptions = {}): Promise<BrowserSession> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const callTimeoutMs = options.callTimeoutMs ?? 120_000;
  const requireIsolation = options.requireIsolation ?? true;
  let server: Served | undefined;
  let browser: Browser | undefined;
  let profile: BrowserContext | undefined;
  let closing: Promise<void> | undefined;

  // Rejects once the page is unusable; every open()/call() races against it.
  let fail!: (error: Error) => void;
  const failure = new Promise<never>((_, reject) => (fail = reject));
  failure.catch(() => {}); // observed through the races below

  const close = (): Promise<void> =>
    (closing ??= (async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // bounded: a wedged browser must not hang the script (Playwright kills it at exit anyway)
      await withTimeout(profile?.close() ?? browser?.close() ?? Promise.resolve(), 10_000, 'closing Chromium').catch(() => {});
      await withTimeout(server?.close() ?? Promise.resolve(), 10_000, 'closing vite').catch(() => {});
    })());
  function onSignal(signal: NodeJS.Signals): void {
    void close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const started = await withTimeout(
      (async () => {
        const vite = options.builtPages
          ? await serveBuiltSite(projectRoot, resolve(projectRoot, `test-results/harness-build-${process.pid}`), options.builtPages)
          : await startViteDevServer(options.optimizeEntries, options.staticPaths);
        server = vite;
        if (closing) await vite.close(); // timed out meanwhile: close() already ran
        const launch = {
          executablePath: chromiumPath,
          args: [...chromiumArgs, ...(options.extraArgs ?? [])],
          headless: true,
          // our handler closes vite too
          handleSIGINT: false,
          handleSIGTERM: false,
        };
        if (options.profileDir) {
          profile = await chromium.launchPersistentContext(options.profileDir, launch);
          if (closing) await profile.close();
          const page = profile.pages()[0] ?? (await profile.newPage());
          const version = await profile.browser()?.version();
          return { baseUrl: vite.baseUrl, browser: profile.browser(), page, version: version ?? (await page.evaluate(() => navigator.userAgent)) };
        }
        browser = await chromium.launch(launch);
        if (closing) await browser.close();
        return { baseUrl: vite.baseUrl, browser, page: await browser.newPage(), version: browser.version() };
      })(),
      // a build comes first when builtPages are served (a minute or more on 2 cores)
      options.builtPages ? timeoutMs + 300_000 : timeoutMs,
      'starting vite + Chromium',
    );
    const { baseUrl, page } = started;
    page.setDefaultTimeout(timeoutMs);
    if (options.console) {
      page.on('console', (msg) => console.log(consoleLine(msg)));
    }
    page.on('pageerror', (error) => {
      if (options.console) console.log(`[page] uncaught: ${error.stack ?? error.message}`);
      if (options.failOnPageError ?? true) fail(new Error(`uncaught error in the page: ${error.message}`));
    });
    // A module that fails to load (vite transform error, 404, stale optimized dep) would
    // otherwise leave open() or a worker call waiting for the full timeout.
    page.on('response', (response) => {
      if (response.status() >= 400 && response.request().resourceType() === 'script') {
        fail(new Error(`script ${response.url()} failed to load: HTTP ${response.status()}`));
      }
    });
    page.on('requestfailed', (request) => {
      // ERR_ABORTED is a navigation cancelling its predecessor's loads, not a broken page
      const reason = request.failure()?.errorText ?? '';
      if (request.resourceType() === 'script' && !reason.includes('ERR_ABORTED')) fail(new Error(`script ${request.url()} failed: ${reason}`));
    });
    page.on('crash', () => fail(new Error('the page crashed')));
    if (started.browser) started.browser.on('disconnected', () => fail(new Error('Chromium disconnected')));
    else profile?.on('close', () => fail(new Error('Chromium closed')));

    const guarded = <T>(promise: Promise<T>, what: string, ms = timeoutMs): Promise<T> =>
      withTimeout(Promise.race([promise, failure]), ms, what);

    return {
      baseUrl,
      // a persistent profile has no Browser object in Playwright: the callers that need one don't use profileDir
      browser: started.browser as Browser,
      browserVersion: started.version,
      page,
      async open(path) {
        const url = new URL(path, baseUrl).href;
        const response = await guarded(page.goto(url, { waitUntil: 'load' }), `opening ${path}`);
        if (!response?.ok()) throw new Error(`opening ${path}: HTTP ${response?.status() ?? 'no response'}`);
        await guarded(
          page.waitForFunction(() => globalThis.__harness !== undefined, null, { timeout: timeoutMs }),
          `waiting for ${path} to call expose()`,
        );
        if (requireIsolation && !(await page.evaluate(() => globalThis.crossOriginIsolated))) {
          throw new Error(`${path} is not cross-origin isolated (COOP/COEP headers missing?)`);
        }
      },
      call<R>(name: string, ...args: unknown[]): Promise<R> {
        // kept free of inner named functions: tsx's __name helper does not exist in the page
        const run = page.evaluate(
          ([fn, fnArgs]) => {
            const target = globalThis.__harness?.fns[fn];
            if (!target) throw new Error(`the page exposed no function "${fn}"`);
            return target(...fnArgs);
          },
          [name, args] as [string, unknown[]],
        );
        return guarded(run as Promise<R>, `calling ${name}()`, callTimeoutMs);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs `body` with a fresh session and always tears it down. */
export async function withBrowserSession<T>(
  options: BrowserSessionOptions,
  body: (session: BrowserSession) => Promise<T>,
): Promise<T> {
  const session = await startBrowserSession(options);
  try {
    return await body(session);
  } finally {
    await session.close();
  }
}
