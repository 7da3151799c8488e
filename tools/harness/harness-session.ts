// A harness page (tools/harness/page.ts) in any of the three browsers, for benches that open a
// page, call what it exposed and reload it: the project served by vite's dev server (COOP/COEP),
// Chromium through browser-session.ts (its on-disk profile when profileDir is given), Firefox
// and WebKit through browsers.ts. What each keeps across a reload of the same page:
//   chromium: the profileDir on disk (without one, Playwright's off-the-record context: memory)
//   firefox:  its launcher's own on-disk profile (a fresh folder per launch, removed at close)
//   webkit:   MiniBrowser's automation session is ephemeral: IndexedDB lives in the web
//             process's memory for the session, so a reload keeps it but nothing reaches disk
import { serveDev, withBrowserSession } from './browser-session.ts';
import { launchBrowser, type BrowserName } from './browsers.ts';

export interface HarnessSession {
  /** Chromium: e.g. "156.0.8078.108"; the others as browsers.ts names them ("firefox 153.8.0esr", "WebKitGTK 2.50.6") */
  readonly browserVersion: string;
  /** navigates to a project path and waits for the page's expose(); a reload when it is the same page */
  open(path: string): Promise<void>;
  /** calls a function the page exposed; arguments and result must be JSON-like */
  call<R = unknown>(name: string, ...args: unknown[]): Promise<R>;
}

export interface HarnessSessionOptions {
  console?: boolean;
  /** limit of each call(), ms */
  callTimeoutMs: number;
  /** Chromium only: its on-disk profile folder (the caller removes it) */
  profileDir?: string;
  /** the pages whose imports vite pre-bundles at start */
  optimizeEntries?: string[];
  /** Firefox only: preferences on top of the launcher's */
  firefoxPrefs?: Record<string, unknown>;
}

/** How much longer than Chromium a browser may take to start and open a page (WebKit: one thread for everything). */
const SLOWNESS: Record<BrowserName, number> = { chromium: 1, firefox: 1.5, webkit: 4 };

export async function withHarnessSession<T>(name: BrowserName, options: HarnessSessionOptions, body: (session: HarnessSession) => Promise<T>): Promise<T> {
  if (name === 'chromium') {
    return withBrowserSession({ console: options.console, callTimeoutMs: options.callTimeoutMs, profileDir: options.profileDir, optimizeEntries: options.optimizeEntries }, (s) =>
      body({ browserVersion: s.browserVersion, open: (path) => s.open(path), call: (fn, ...args) => s.call(fn, ...args) }),
    );
  }
  const timeoutMs = 60_000 * SLOWNESS[name];
  const server = await serveDev({ optimizeEntries: options.optimizeEntries });
  try {
    const browser = await launchBrowser(name, { timeoutMs, console: options.console, firefoxPrefs: options.firefoxPrefs });
    try {
      return await body({
        browserVersion: browser.version,
        async open(path) {
          await browser.open(`${server.baseUrl}${path}`);
          await browser.evaluate(
            `(async () => { const until = Date.now() + ${timeoutMs}; while (!globalThis.__harness) { if (Date.now() > until) throw new Error('no expose()'); await new Promise((r) => setTimeout(r, 50)); } return true; })()`,
            { timeoutMs: timeoutMs + 2000, what: `waiting for ${path} to call expose()` },
          );
          if (!(await browser.evaluate<boolean>('globalThis.crossOriginIsolated'))) throw new Error(`${path} is not cross-origin isolated in ${name}`);
        },
        call: (fn, ...args) =>
          browser.evaluate(`globalThis.__harness.fns[${JSON.stringify(fn)}](...${JSON.stringify(args)})`, { timeoutMs: options.callTimeoutMs, what: `${fn}()` }),
      });
    } finally {
      await browser.close();
    }
  } finally {
    await server.close();
  }
}
