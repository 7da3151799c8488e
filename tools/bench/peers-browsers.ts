// bench:peers in any browser (`--browser firefox|webkit`) and in Chromium without COOP/COEP
// (`--no-isolation`): the same bench page (pages/peers.ts: human, face-api and this engine in
// their own frames, same photos, calls alternating) driven through tools/harness/browsers.ts, so
// Firefox (puppeteer-core, BiDi) and WebKit (WebKitWebDriver + MiniBrowser) run it like Chromium.
// Warm passes only: the Chromium run's cold starts need Playwright's fresh contexts and response
// sizes, which the other drivers do not offer. Written into docs/benchmarks.md between markers
// of its own per browser, next to (not over) the Chromium section.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { projectRoot, serveDev } from '../harness/browser-session.ts';
import { launchBrowser, type BrowserName } from '../harness/browsers.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import { SINGLE_FACE } from './detect-photos.ts';
import type { EngineBuild, PeerRuntime } from './pages/peer-adapter.ts';
import type { Call, SetupResult } from './pages/peers.ts';
import { BANDS, PEER_LABELS, PEERS, bandTotals, engineRatios, perImageMedians, sumOfMedians, type BenchImage, type Peer, type Samples } from './peers-data.ts';
import { ManifestSchema, benchImages } from './peers-manifest.ts';
import { cpuModel, ms, pct, waitForIdle } from './report.ts';
import { median } from './stats.ts';

const DATA = resolve(projectRoot, '../shared/data');
const PAGE = '/tools/bench/pages/peers.html';
const FRAME = '/tools/bench/pages/peer-frame.html';
const SINGLE_ID = 'single';
const WARMUP_MIN_MS = 3000;
const PASS_CHUNK = 12;
/** the libraries' own files sent as they are on disk (see LIBRARY_FILES in peers.ts) */
const PEER_FILES = ['/node_modules/@vladmandic/human/dist/', '/node_modules/@vladmandic/face-api/dist/', '/node_modules/@tensorflow/tfjs-backend-wasm/dist/'];

export interface CrossOptions {
  browser: BrowserName;
  /** false: the page without COOP/COEP (not cross-origin isolated: one WASM thread for everyone) */
  isolation: boolean;
  passes: number;
  warmup: number;
  singleRepeats: number;
  threads: number;
  engineBuild: EngineBuild;
  waitIdle: number;
  only?: string;
  console: boolean;
  /** after every chunk of a pass, the run so far is saved here (renderable with --from: a run cut short keeps its passes) */
  progressFile?: string;
}

export interface CrossMeasured {
  kind: 'cross';
  measuredAt: string;
  machine: string;
  browser: BrowserName;
  browserVersion: string;
  isolation: boolean;
  options: Omit<CrossOptions, 'console' | 'waitIdle' | 'progressFile'>;
  images: BenchImage[];
  setup: SetupResult;
  calls: Call[];
  runtimes: Record<Peer, PeerRuntime>;
  /** saved while the passes were still running (the run was cut short) */
  partial?: boolean;
  othersWarm: number | undefined;
  /** 1-minute load average before and after the measurement (`uptime`) */
  loadBefore: number;
  loadAfter: number;
  durationS: number;
}

/** The section's markers in docs/benchmarks.md: one pair per browser / isolation variant. */
export function crossMarkers(browser: BrowserName, isolation: boolean): { start: string; end: string } {
  const id = `${browser}${isolation ? '' : '-no-isolation'}`;
  return { start: `<!-- peers-bench-${id}:start -->`, end: `<!-- peers-bench-${id}:end -->` };
}

/** The package build in a folder of this run's own (another session's `npm pack` empties dist/lib meanwhile). */
function buildEngineLib(dir: string): void {
  console.log(`building the engine package into dist/${dir} (vite.lib.config.ts)`);
  execFileSync('npx', ['vite', 'build', '--config', 'vite.lib.config.ts', '--outDir', `dist/${dir}`, '--logLevel', 'warn'], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
}

export async function measureInBrowser(o: CrossOptions): Promise<CrossMeasured> {
  const started = Date.now();
  const loadBefore = loadavg()[0]!;
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(resolve(DATA, 'manifest.json'), 'utf8')));
  const images = benchImages(manifest).filter((i) => !o.only || i.path.includes(o.only));
  if (!images.length) throw new Error(`no bench images${o.only ? ` contain "${o.only}"` : ''}`);
  const ids = [SINGLE_ID, ...images.map((i) => i.path)];
  const warmIds = [SINGLE_ID, ...BANDS.flatMap((b) => {
    const inBand = images.filter((i) => i.band === b.id);
    return inBand.length ? [inBand.reduce((a, c) => (c.width * c.height > a.width * a.height ? c : a)).path] : [];
  })];
  const libDir = o.engineBuild === 'lib' ? `peers-${process.pid}` : undefined;
  if (libDir) buildEngineLib(libDir);
  const server = await serveDev({ optimizeEntries: [PAGE, FRAME], staticPaths: [...PEER_FILES, ...(libDir ? [`/dist/${libDir}/`] : [])], isolation: o.isolation });
  // WebKit runs everything on one thread, three libraries' model loads included
  const slow = o.browser === 'webkit' ? 4 : 1;
  const browser = await launchBrowser(o.browser, { timeoutMs: 120_000 * slow, console: o.console });
  let before: ReturnType<typeof cpuSnapshot>;
  const call = <T>(fn: string, args: unknown, timeoutMs: number) =>
    browser.evaluate<T>(`globalThis.__harness.fns[${JSON.stringify(fn)}](${JSON.stringify(args)})`, { timeoutMs, what: `${fn}()` });
  try {
    await browser.open(`${server.baseUrl}${PAGE}`);
    await browser.evaluate(`(async () => { while (!globalThis.__harness) await new Promise((r) => setTimeout(r, 100)); return true; })()`, { what: 'the bench page to load' });
    const isolated = await browser.evaluate<boolean>('crossOriginIsolated');
    if (isolated !== o.isolation) throw new Error(`the bench page is${isolated ? '' : ' not'} cross-origin isolated, expected the opposite`);
    await waitForIdle(o.waitIdle);
    before = cpuSnapshot();
    console.log(`${browser.version}: starting the three libraries and loading ${ids.length} photos`);
    const setup = await call<SetupResult>('setup', { ids, threads: o.threads, tfjsNativeThreads: false, engineBuild: o.engineBuild, engineLibDir: libDir }, 600_000 * slow);
    console.log(`warm-up: ${o.warmup} round(s) over ${warmIds.length} photos`);
    await call('warmUp', { ids: warmIds, rounds: o.warmup, minMs: WARMUP_MIN_MS }, 600_000 * slow);
    const calls: Call[] = [];
    const passIds = [...Array<string>(o.singleRepeats).fill(SINGLE_ID), ...images.map((i) => i.path)];
    for (let p = 0; p < o.passes; p++) {
      const t = Date.now();
      for (let from = 0; from < passIds.length; from += PASS_CHUNK) {
        calls.push(...(await call<Call[]>('pass', { ids: passIds.slice(from, from + PASS_CHUNK), index: p + from }, 600_000 * slow)));
        if (o.progressFile) writeFileSync(o.progressFile, JSON.stringify(result(setup, calls, undefined), null, 1));
        console.log(`pass ${p + 1}/${o.passes}: ${Math.min(from + PASS_CHUNK, passIds.length)}/${passIds.length} photos, ${((Date.now() - t) / 1000).toFixed(0)} s`);
      }
    }
    const runtimes = await call<Record<Peer, PeerRuntime>>('finish', {}, 60_000);
    return result(setup, calls, runtimes);
  } finally {
    await browser.close();
    await server.close();
    if (libDir) rmSync(resolve(projectRoot, 'dist', libDir), { recursive: true, force: true });
  }

  /** the run so far; `runtimes` undefined while passes are still running (a partial save) */
  function result(setup: SetupResult, calls: Call[], runtimes: Record<Peer, PeerRuntime> | undefined): CrossMeasured {
    const othersWarm = othersShare(before, cpuSnapshot());
    const { console: _c, waitIdle: _w, progressFile: _p, ...kept } = o;
    return {
      kind: 'cross',
      measuredAt: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      machine: `${cpus().length} cores, ${cpuModel()}`,
      browser: o.browser,
      browserVersion: browser.version,
      isolation: o.isolation,
      options: kept,
      images,
      setup,
      calls,
      runtimes: runtimes ?? partialRuntimes,
      ...(runtimes ? {} : { partial: true }),
      othersWarm,
      loadBefore,
      loadAfter: loadavg()[0]!,
      durationS: (Date.now() - started) / 1000,
    };
  }
}

/** what a partial save says of the libraries' runtimes (only finish() reports them) */
const partialRuntimes = Object.fromEntries(PEERS.map((p) => [p, { backend: '?', threads: Number.NaN, models: [] }])) as unknown as Record<Peer, PeerRuntime>;

// ------------------------------------------------------------------------------ report

const x = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const msOrS = (v: number) => (!Number.isFinite(v) ? 'n/a' : v >= 10_000 ? `${(v / 1000).toFixed(2)} s` : `${ms(v)} ms`);
const row = (label: string, times: Record<Peer, number>) => {
  const r = engineRatios(times);
  return `| ${label} | ${PEERS.map((p) => msOrS(times[p])).join(' | ')} | **${x(r.vsHuman)}** | ${x(r.vsFaceapi)} |`;
};

function samplesOf(calls: readonly Call[], pick: (c: Call) => number): Samples {
  const out = Object.fromEntries(PEERS.map((p) => [p, {} as Record<string, number[]>])) as Samples;
  for (const c of calls) (out[c.peer][c.id] ??= []).push(pick(c));
  return out;
}

export function renderCross(m: CrossMeasured): string {
  const times = samplesOf(m.calls, (c) => c.ms);
  const faces = samplesOf(m.calls, (c) => c.faces);
  const ids = [SINGLE_ID, ...m.images.map((i) => i.path)];
  const medians = perImageMedians(times, ids);
  const groups = m.images.filter((i) => i.set === 'groups');
  const single = Object.fromEntries(PEERS.map((p) => [p, medians[p][SINGLE_ID]!])) as Record<Peer, number>;
  const rt = m.runtimes;
  const found = (peer: Peer, set: 'groups' | 'faces') =>
    m.images.filter((i) => i.set === set).reduce((sum, i) => sum + median(faces[peer][i.path] ?? [Number.NaN]), 0);
  const expected = (set: 'groups' | 'faces') => m.images.filter((i) => i.set === set).reduce((sum, i) => sum + (i.expectedFaces ?? 0), 0);
  const title = m.isolation ? `### ${m.browserVersion}` : `### ${m.browserVersion}, without COOP/COEP (not cross-origin isolated)`;
  const reduced = m.options.passes < 5;
  const lines = [
    title,
    '',
    `Measured ${m.measuredAt} by \`npm run bench:peers -- --browser ${m.browser}${m.isolation ? '' : ' --no-isolation'}${reduced ? ` --passes ${m.options.passes}` : ''}\` in ${(m.durationS / 60).toFixed(1)} min; regenerate rather than edit.` +
      (m.options.only ? ` **Partial run: only photos whose path contains "${m.options.only}".**` : '') +
      (reduced ? ` **Reduced run: ${m.options.passes} measured pass(es) (default 5).**` : '') +
      (m.partial ? ` **Cut short: ${Math.max(...PEERS.map((p) => (times[p][SINGLE_ID]?.length ?? 0))) / m.options.singleRepeats} pass(es) of ${m.options.passes} saved.**` : ''),
    '',
    `- Machine: ${m.machine}; load average ${m.loadBefore.toFixed(1)} before and ${m.loadAfter.toFixed(1)} after the run, other processes used ${pct(m.othersWarm)} of the CPU during it ` +
      '(the machine is shared: absolute times are inflated by that load, the three libraries alternate call by call so the ratios see the same load).',
    `- Page: ${m.setup.crossOriginIsolated ? 'cross-origin isolated' : '**not** cross-origin isolated'}; hardwareConcurrency ${m.setup.hardwareConcurrency}; ` +
      `human ${rt.human.backend}${rt.human.simd ? ' SIMD' : ''}, ${rt.human.threads} thread(s); face-api ${rt.faceapi.backend}${rt.faceapi.simd ? ' SIMD' : ''}, ${rt.faceapi.threads} thread(s); ` +
      `this engine ${rt.engine.backend}, ${rt.engine.threads} thread(s) (asked for ${m.options.threads}).`,
    `- Same photos, options and order as the Chromium run above; ${m.options.warmup} warm-up round(s), ${m.options.passes} measured pass(es), the single face ${m.options.singleRepeats}× per pass; medians per photo, sums of medians. No cold starts (they need Playwright's fresh contexts).`,
    '',
    `| work | ${PEERS.map((p) => PEER_LABELS[p]).join(' | ')} | engine / human | engine / face-api |`,
    '|---|--:|--:|--:|--:|--:|',
    row(`one face 640×480 (\`${SINGLE_FACE.source}\` cropped), median of ${times.engine[SINGLE_ID]?.length ?? 0} calls`, single),
  ];
  if (groups.length) lines.push(row(`the ${groups.length} photos of groups/, sum`, sumOfMedians(medians, groups.map((i) => i.path))));
  for (const b of bandTotals(m.images, medians)) if (b.images) lines.push(row(`${b.label}: ${b.images} photos (${b.megapixels.toFixed(1)} MP), sum`, b.sums));
  lines.push(
    `| faces found on groups/ (manifest ${expected('groups')}) | ${PEERS.map((p) => found(p, 'groups')).join(' | ')} | | |`,
    `| faces found on faces/ (manifest ${expected('faces')}) | ${PEERS.map((p) => found(p, 'faces')).join(' | ')} | | |`,
  );
  return lines.join('\n');
}
