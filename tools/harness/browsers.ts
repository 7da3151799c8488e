// One small interface over the three browser engines this machine has, so the cross-browser
// tests (test/engines/) and the benches (tools/bench/peers.ts --browser) drive them alike:
// launchBrowser(name) → open(url) → evaluate(expression) → close().
//   chromium: Debian's Chromium through playwright-core (CDP)
//   firefox:  Debian's firefox-esr through puppeteer-core over WebDriver BiDi (no driver binary;
//             puppeteer-core never downloads a browser)
//   webkit:   WebKitGTK's MiniBrowser through WebKitWebDriver (W3C WebDriver, selenium-webdriver),
//             under xvfb-run: MiniBrowser has no headless mode
// evaluate() takes a JavaScript expression (a string: tsx's helpers must not leak into the page)
// whose value may be a promise, and returns it JSON-parsed: each protocol serialises results its
// own way (BiDi mangles nested objects), so the page always hands back JSON.stringify's text.
// Every call is bounded: a hang fails with the step's name instead of stalling the caller.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumArgs, chromiumPath } from '../browser-env.ts';
import { withTimeout } from './browser-session.ts';

export const BROWSER_NAMES = ['chromium', 'firefox', 'webkit'] as const;
export type BrowserName = (typeof BROWSER_NAMES)[number];

export const firefoxPath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
export const webkitDriverPath = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';

export interface DrivenBrowser {
  readonly name: BrowserName;
  /** the browser's own version string, e.g. "Chromium 156.0…", "firefox 153.7.0esr", "WebKitGTK 2.50.1" */
  readonly version: string;
  /** navigates the one page to `url` and waits for its load event */
  open(url: string, timeoutMs?: number): Promise<void>;
  /**
   * Evaluates `expression` in the page (a promise is awaited) and returns its value through
   * JSON; a thrown error comes back as an Error carrying the page's message and stack.
   * `what` names the step in a timeout's message.
   */
  evaluate<T = unknown>(expression: string, options?: { timeoutMs?: number; what?: string }): Promise<T>;
  /** messages the page logged as errors and uncaught errors (only where the protocol reports them) */
  readonly pageErrors: string[];
  /** idempotent, bounded, never throws */
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** default limit of open() and evaluate(), ms (default 60 s) */
  timeoutMs?: number;
  /** forward the page's console to stdout (Chromium and Firefox) */
  console?: boolean;
  /** Firefox only: preferences on top of the launcher's (e.g. a storage limit) */
  firefoxPrefs?: Record<string, unknown>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const LAUNCH_TIMEOUT_MS = 90_000;
const CLOSE_TIMEOUT_MS = 15_000;

/**
 * The expression wrapped so the page returns `{ ok: value }` or `{ error }` as JSON text. The
 * value is stringified once, in the page: what crosses the protocol is one plain string.
 */
export function wrapForJson(expression: string): string {
  return `(async () => { try { const value = await (${expression}); return JSON.stringify({ ok: value === undefined ? null : value }); } ` +
    `catch (e) { return JSON.stringify({ error: String(e && e.stack ? (String(e.stack).includes(String(e.message)) ? e.stack : e.name + ': ' + e.message + '\\n' + e.stack) : e) }); } })()`;
}

export function unwrapJson<T>(text: unknown, what: string): T {
  if (typeof text !== 'string') throw new Error(`${what}: the page returned ${typeof text}, not JSON text`);
  const parsed = JSON.parse(text) as { ok?: T; error?: string };
  if ('error' in parsed) throw new Error(`${what}: the page threw: ${parsed.error}`);
  return parsed.ok as T;
}

export async function launchBrowser(name: BrowserName, options: LaunchOptions = {}): Promise<DrivenBrowser> {
  const launch = name === 'chromium' ? launchChromium : name === 'firefox' ? launchFirefox : launchWebKit;
  return withTimeout(launch(options), LAUNCH_TIMEOUT_MS, `launching ${name}`);
}

// ----------------------------------------------------------------------------- Chromium

async function launchChromium(options: LaunchOptions): Promise<DrivenBrowser> {
  const { chromium } = await import('playwright-core');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true, handleSIGINT: false, handleSIGTERM: false });
  const page = await browser.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
    if (options.console) console.log(`[chromium ${m.type()}] ${m.text()}`);
  });
  let closing: Promise<void> | undefined;
  return {
    name: 'chromium',
    version: `Chromium ${browser.version()}`,
    pageErrors,
    async open(url, ms = timeoutMs) {
      const response = await withTimeout(page.goto(url, { waitUntil: 'load', timeout: 0 }), ms, `chromium: opening ${url}`);
      if (response && !response.ok()) throw new Error(`chromium: opening ${url}: HTTP ${response.status()}`);
    },
    async evaluate<T>(expression: string, o: { timeoutMs?: number; what?: string } = {}) {
      const what = `chromium: ${o.what ?? 'evaluate'}`;
      return unwrapJson<T>(await withTimeout(page.evaluate(wrapForJson(expression)), o.timeoutMs ?? timeoutMs, what), what);
    },
    close: () => (closing ??= withTimeout(browser.close(), CLOSE_TIMEOUT_MS, 'closing chromium').catch(() => {})),
  };
}

// ----------------------------------------------------------------------------- Firefox

async function launchFirefox(options: LaunchOptions): Promise<DrivenBrowser> {
  const puppeteer = (await import('puppeteer-core')).default;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // an own profile per launch: a test's IndexedDB must not meet another run's
  const profile = mkdtempSync(join(tmpdir(), 'firefox-profile-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    userDataDir: profile,
    timeout: LAUNCH_TIMEOUT_MS,
    protocolTimeout: 0, // evaluate() bounds each call itself, with the step's name
    handleSIGINT: false,
    handleSIGTERM: false,
    extraPrefsFirefox: {
      // no network here: keep Firefox from phoning home while the tests run
      'app.update.enabled': false,
      'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      ...options.firefoxPrefs,
    },
  });
  const page = (await browser.pages())[0] ?? (await browser.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e instanceof Error ? e.message : String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
    if (options.console) console.log(`[firefox ${m.type()}] ${m.text()}`);
  });
  const version = await browser.version();
  let closing: Promise<void> | undefined;
  return {
    name: 'firefox',
    version,
    pageErrors,
    async open(url, ms = timeoutMs) {
      const response = await withTimeout(page.goto(url, { waitUntil: 'load', timeout: 0 }), ms, `firefox: opening ${url}`);
      // 304: the same page again, revalidated from Firefox's cache (a reload)
      if (response && !response.ok() && response.status() !== 304) throw new Error(`firefox: opening ${url}: HTTP ${response.status()}`);
    },
    async evaluate<T>(expression: string, o: { timeoutMs?: number; what?: string } = {}) {
      const what = `firefox: ${o.what ?? 'evaluate'}`;
      return unwrapJson<T>(await withTimeout(page.evaluate(wrapForJson(expression)), o.timeoutMs ?? timeoutMs, what), what);
    },
    close: () =>
      (closing ??= (async () => {
        await withTimeout(browser.close(), CLOSE_TIMEOUT_MS, 'closing firefox').catch(() => browser.process()?.kill('SIGKILL'));
        rmSync(profile, { recursive: true, force: true });
      })()),
  };
}

// ----------------------------------------------------------------------------- WebKit

/** WebKitGTK's MiniBrowser: not on PATH, found through its Debian package's file list. */
export function miniBrowserPath(): string {
  if (process.env.MINIBROWSER_PATH) return process.env.MINIBROWSER_PATH;
  for (const pkg of ['libwebkit2gtk-4.1-0', 'libwebkitgtk-6.0-4']) {
    try {
      const found = execFileSync('dpkg', ['-L', pkg], { encoding: 'utf8' })
        .split('\n')
        .find((l) => l.endsWith('/MiniBrowser'));
      if (found) return found;
    } catch {
      // package not installed: try the next
    }
  }
  throw new Error('MiniBrowser not found: apt-get install -y webkit2gtk-driver (it brings libwebkit2gtk-4.1-0)');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the driver answers /status ready, rejects when it exits first. */
async function waitForDriver(url: string, driver: ChildProcess, log: () => string): Promise<void> {
  let exited = false;
  driver.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`WebKitWebDriver exited before it was ready: ${log()}`);
    try {
      const status = (await (await fetch(`${url}/status`)).json()) as { value?: { ready?: boolean } };
      if (status.value?.ready) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function launchWebKit(options: LaunchOptions): Promise<DrivenBrowser> {
  const { Builder, Capabilities } = await import('selenium-webdriver');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const binary = miniBrowserPath();
  const port = await freePort();
  // xvfb-run -a: its own X display (another session may run one); detached so that the whole
  // group (xvfb-run, Xvfb, the driver, MiniBrowser and its web processes) ends with one kill
  const driverProcess = spawn('xvfb-run', ['-a', '-s', '-screen 0 1280x1024x24', webkitDriverPath, `--port=${port}`, '--host=127.0.0.1'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  driverProcess.stdout?.on('data', (d) => (output = (output + d).slice(-4000)));
  driverProcess.stderr?.on('data', (d) => (output = (output + d).slice(-4000)));
  const killGroup = () => {
    try {
      if (driverProcess.pid) process.kill(-driverProcess.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const serverUrl = `http://127.0.0.1:${port}`;
  try {
    await withTimeout(waitForDriver(serverUrl, driverProcess, () => output), 30_000, 'starting WebKitWebDriver under xvfb-run');
    const capabilities = new Capabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary, args: ['--automation'] },
    });
    const driver = await new Builder().usingServer(serverUrl).withCapabilities(capabilities).build();
    // evaluate() bounds each script itself (with the step's name); the driver must not cut it short
    await driver.manage().setTimeouts({ script: 24 * 3600_000, pageLoad: 24 * 3600_000 });
    const caps = await driver.getCapabilities();
    const version = `WebKitGTK ${String(caps.get('browserVersion') ?? '?')}`;
    let closing: Promise<void> | undefined;
    return {
      name: 'webkit',
      version,
      pageErrors: [],
      async open(url, ms = timeoutMs) {
        await withTimeout(driver.get(url), ms, `webkit: opening ${url}`);
      },
      async evaluate<T>(expression: string, o: { timeoutMs?: number; what?: string } = {}) {
        const what = `webkit: ${o.what ?? 'evaluate'}`;
        // an async script: WebKitWebDriver's executeScript does not wait for a returned promise
        const script = `const done = arguments[arguments.length - 1]; ${wrapForJson(expression)}.then(done, (e) => done(JSON.stringify({ error: String(e) })));`;
        return unwrapJson<T>(await withTimeout(driver.executeAsyncScript(script), o.timeoutMs ?? timeoutMs, what), what);
      },
      close: () =>
        (closing ??= (async () => {
          await withTimeout(driver.quit(), CLOSE_TIMEOUT_MS, 'closing webkit').catch(() => {});
          killGroup();
        })()),
    };
  } catch (error) {
    killGroup();
    throw error;
  }
}
