// bench:peers' warm passes in any browser and either configuration: the bench page (pages/peers.ts:
// human, face-api and this engine in their own frames, the same encoded photos, calls alternating)
// served with or without COOP/COEP and driven through tools/harness/browsers.ts, so Chromium
// (playwright-core), Firefox (puppeteer-core, BiDi) and WebKit (WebKitWebDriver + MiniBrowser)
// run it alike. Cold starts are Chromium's only (peers.ts: they need Playwright's fresh contexts).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { projectRoot, serveDev, type Served } from '../harness/browser-session.ts';
import { launchBrowser, type BrowserName } from '../harness/browsers.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import type { EngineBuild, PeerRuntime } from './pages/peer-adapter.ts';
import type { Call, SetupResult } from './pages/peers.ts';
import { BANDS, PEERS, SINGLE_ID, passOrder, type BenchImage, type Config, type Peer } from './peers-data.ts';
import { ms, waitForIdle } from './report.ts';

export const PAGE = '/tools/bench/pages/peers.html';
export const FRAME = '/tools/bench/pages/peer-frame.html';
const WARMUP_MIN_MS = 3000;
/** photos per page call within a pass: progress shows, and no single call runs for minutes */
const PASS_CHUNK = 12;
/**
 * the libraries' own files, sent as they are on disk (as a static server or CDN would) rather than
 * through vite's transforms, which inline each bundle's source map into it: human's 2.1 MB bundle
 * was served as 7.0 MB, and every byte of it parsed before the library could start
 */
const PEER_FILES = ['/node_modules/@vladmandic/human/dist/', '/node_modules/@vladmandic/face-api/dist/', '/node_modules/@tensorflow/tfjs-backend-wasm/dist/'];

export interface WarmOptions {
  browser: BrowserName;
  config: Config;
  passes: number;
  warmup: number;
  singleRepeats: number;
  engineBuild: EngineBuild;
  /** the package build's folder under dist/ (engineBuild 'lib') */
  engineLibDir?: string;
  tfjsNativeThreads: boolean;
  waitIdle: number;
  /** idle ms before every measured call (0: back to back) */
  settleMs?: number;
  console: boolean;
  /** called with the calls so far after every chunk (a run cut short keeps its passes) */
  onProgress?: (calls: Call[]) => void;
}

export interface WarmRun {
  browserVersion: string;
  setup: SetupResult;
  /** measured calls only (no warm-up) */
  calls: Call[];
  runtimes: Record<Peer, PeerRuntime>;
  /** share of the CPU other processes used during the passes */
  othersWarm: number | undefined;
  /** 1-minute load average before and after */
  loadBefore: number;
  loadAfter: number;
  durationS: number;
}

/** The package build in a folder of this run's own (another session's `npm pack` may empty dist/lib meanwhile). */
export function buildEngineLib(dir: string): void {
  console.log(`building the engine package into dist/${dir} (vite.lib.config.ts)`);
  execFileSync('npx', ['vite', 'build', '--config', 'vite.lib.config.ts', '--outDir', `dist/${dir}`, '--logLevel', 'warn'], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
}

export const removeEngineLib = (dir: string) => rmSync(resolve(projectRoot, 'dist', dir), { recursive: true, force: true });

/** Vite's dev server for the bench pages, with or without COOP/COEP. */
export const serveBench = (isolation: boolean, engineLibDir: string | undefined): Promise<Served> =>
  serveDev({ optimizeEntries: [PAGE, FRAME], staticPaths: [...PEER_FILES, ...(engineLibDir ? [`/dist/${engineLibDir}/`] : [])], isolation });

/** the single face and the largest photo of each band: every model, every input size class */
export function warmUpIds(images: readonly BenchImage[]): string[] {
  return [
    SINGLE_ID,
    ...BANDS.flatMap((b) => {
      const inBand = images.filter((i) => i.band === b.id);
      return inBand.length ? [inBand.reduce((a, c) => (c.width * c.height > a.width * a.height ? c : a)).path] : [];
    }),
  ];
}

/** JSON has no NaN: a decode the page did not measure comes back as null */
const fromJson = (c: Call): Call => ({ ...c, decodeMs: typeof c.decodeMs === 'number' ? c.decodeMs : Number.NaN });

/** Warm-up rounds, then `passes` measured passes over the single face (singleRepeats×) and `images`, on `server`. */
export async function measureWarm(o: WarmOptions, images: readonly BenchImage[], server: Served): Promise<WarmRun> {
  const started = Date.now();
  const loadBefore = loadavg()[0]!;
  // WebKit runs everything on one thread, three libraries' model loads included
  const slow = o.browser === 'webkit' ? 4 : 1;
  const browser = await launchBrowser(o.browser, { timeoutMs: 120_000 * slow, console: o.console });
  const call = <T>(fn: string, args: unknown, timeoutMs: number) =>
    browser.evaluate<T>(`globalThis.__harness.fns[${JSON.stringify(fn)}](${JSON.stringify(args)})`, { timeoutMs, what: `${fn}()` });
  try {
    await browser.open(`${server.baseUrl}${PAGE}`);
    await browser.evaluate(`(async () => { while (!globalThis.__harness) await new Promise((r) => setTimeout(r, 100)); return true; })()`, { what: 'the bench page to load' });
    const isolated = await browser.evaluate<boolean>('crossOriginIsolated');
    if (isolated !== o.config.isolation) throw new Error(`the bench page is${isolated ? '' : ' not'} cross-origin isolated, expected the opposite`);
    await waitForIdle(o.waitIdle);
    const before = cpuSnapshot();
    const ids = [SINGLE_ID, ...images.map((i) => i.path)];
    console.log(`${browser.version}, ${o.config.label}: starting the three libraries and making ${ids.length} photos`);
    const setup = await call<SetupResult>(
      'setup',
      { ids, threads: o.config.threads, tfjsNativeThreads: o.tfjsNativeThreads, engineBuild: o.engineBuild, engineLibDir: o.engineLibDir },
      600_000 * slow,
    );
    for (const peer of PEERS) {
      if (setup.frames[peer].crossOriginIsolated !== o.config.isolation) throw new Error(`${peer}'s frame is${o.config.isolation ? ' not' : ''} cross-origin isolated`);
    }
    const warmIds = warmUpIds(images);
    console.log(`warm-up: ${o.warmup} round(s) over ${warmIds.length} photos (≥ ${WARMUP_MIN_MS / 1000} s)`);
    await call('warmUp', { ids: warmIds, rounds: o.warmup, minMs: WARMUP_MIN_MS }, 900_000 * slow);
    const calls: Call[] = [];
    const passIds = passOrder(images.map((i) => i.path), o.singleRepeats);
    for (let p = 0; p < o.passes; p++) {
      const t = Date.now();
      for (let from = 0; from < passIds.length; from += PASS_CHUNK) {
        const chunk = (await call<Call[]>('pass', { ids: passIds.slice(from, from + PASS_CHUNK), index: p + from, settleMs: o.settleMs ?? 0 }, 900_000 * slow)).map(fromJson);
        calls.push(...chunk);
        o.onProgress?.(calls);
        const slowest = chunk.reduce((a, c) => (c.ms > a.ms ? c : a));
        console.log(
          `pass ${p + 1}/${o.passes}: ${Math.min(from + PASS_CHUNK, passIds.length)}/${passIds.length} photos, ${((Date.now() - t) / 1000).toFixed(0)} s ` +
            `(slowest: ${slowest.peer} on ${slowest.id}, ${ms(slowest.ms)} ms)`,
        );
      }
    }
    const runtimes = await call<Record<Peer, PeerRuntime>>('finish', {}, 60_000);
    return {
      browserVersion: browser.version,
      setup,
      calls,
      runtimes,
      othersWarm: othersShare(before, cpuSnapshot()),
      loadBefore,
      loadAfter: loadavg()[0]!,
      durationS: (Date.now() - started) / 1000,
    };
  } finally {
    await browser.close();
  }
}
