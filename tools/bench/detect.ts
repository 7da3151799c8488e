// `npm run bench`: /detect in headless Chromium (WASM backend): cold start (navigation →
// first /detect result) and warm per-stage p50/p95 for a 640×480 single-face photo and the
// 29-face group photo, written into docs/benchmarks.md between the detect-bench markers.
//   --runs N (20)  --group-runs N (10)  --warmup N (3)  --cold-runs N (3)
//   --cases id,id (single, single-whole-frame, single-liveness, group)
//   --backend wasm|auto|webgpu (wasm)  --threads N (engine default)
//   --wait-idle S (before each phase, wait up to S seconds for other work to stop; default 0)
//   --retries N (measure a phase again, up to N times, when other processes took > 5% of
//                the CPU meanwhile; the quietest attempt is kept; default 0)
//   --built (serve a production build of the page with vite preview, as `npm run demo` does;
//            written to its own section of docs/benchmarks.md)
//   --console (page logs)  --json FILE (also save the raw results)  --no-write (stdout only)
//   --from FILE (no measuring: render the results a --json run saved, e.g. after editing the report)
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { projectRoot, withBrowserSession, type BrowserSession } from '../harness/browser-session.ts';
import { callOnNewPage } from '../harness/page-call.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import { GROUP, SINGLE_FACE } from './detect-photos.ts';
import type { ColdStages, ColdStart, WarmCase, WarmOptions, WarmResult, WarmStart } from './pages/detect.ts';
import { cpuModel, ms, pct, waitForIdle, writeBetweenMarkers } from './report.ts';
import { median, type Summary } from './stats.ts';
import { DEMOGRAPHICS, demographicsModels } from '../../src/models/catalog.ts';

const START = '<!-- detect-bench:start -->';
const END = '<!-- detect-bench:end -->';
/** the same measurements on the production build (--built) */
const BUILT_START = '<!-- detect-bench-built:start -->';
const BUILT_END = '<!-- detect-bench-built:end -->';
const DOC = resolve(projectRoot, 'docs/benchmarks.md');
const DOC_TEMPLATE = `# Benchmarks

Per-model inference times are in [models.md](models.md#inference-times-in-chromium-wasm).

${START}
${END}
`;
const PAGE = '/tools/bench/pages/detect.html';

const TARGETS = { detectP50: 100, detectionP50: 10, coldStart: 2000 };

interface FreshPageRun<R> {
  result: R;
  /** requests Playwright saw finish in the context (page and its workers) and their bodies' bytes */
  requests: number;
  bytes: number;
}

/**
 * Opens `path` in a new browser context (own, empty HTTP cache and code cache) and returns
 * what the page's `fn` resolves to. Mirrors BrowserSession.open()/call() for one page.
 */
async function inFreshContext<R>(session: BrowserSession, path: string, fn: string, timeoutMs: number): Promise<FreshPageRun<R>> {
  const context = await session.browser.newContext();
  try {
    const sizes: Promise<number>[] = [];
    context.on('requestfinished', (request) => sizes.push(request.sizes().then((s) => s.responseBodySize, () => 0)));
    const result = await callOnNewPage<R>(context, session.baseUrl, path, fn, {
      timeoutMs,
      requireIsolation: true,
      onPage: (page) => watchReloads(page, `${path} (fresh context)`),
    });
    const bytes = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
    return { result, requests: sizes.length, bytes };
  } finally {
    await context.close().catch(() => {});
  }
}

/** Playwright's error when the page navigated (reloaded) under a pending evaluate */
const isNavigationError = (error: unknown) => /Execution context was destroyed/.test(String(error));

/**
 * Reports why a page reloaded: vite's dev server sends "full-reload" e.g. when its dependency
 * optimizer re-bundles (other harness sessions share its cache; see the report).
 */
function watchReloads(page: Page, what: string): void {
  page.on('websocket', (ws) =>
    ws.on('framereceived', (frame) => {
      const text = String(frame.payload);
      if (text.includes('full-reload')) console.warn(`${what}: vite's dev server told the page to reload: ${text.slice(0, 300)}`);
    }),
  );
}

/** session.call() that starts over (reopening `path`) when the page reloaded under it. */
async function callSurvivingReloads<R>(session: BrowserSession, path: string, fn: string, args: unknown[], attempts = 3): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await session.call<R>(fn, ...args);
    } catch (error) {
      if (attempt >= attempts || !isNavigationError(error)) throw error;
      console.warn(`the page reloaded during ${fn}() (${String(error).split('\n')[0]}); reopening it and starting over`);
      await session.open(path);
    }
  }
}

/** other processes' CPU share above which a measurement counts as disturbed */
const BUSY = 0.05;

/**
 * Runs `measure` once the machine is quiet (waiting up to `waitIdleS`), and again while other
 * processes took more than BUSY of the CPU meanwhile (at most `retries` times); keeps the quietest.
 */
async function quietly<R>(what: string, waitIdleS: number, retries: number, measure: () => Promise<R>): Promise<{ result: R; others: number | undefined }> {
  let best: { result: R; others: number | undefined } | undefined;
  for (let attempt = 0; ; attempt++) {
    await waitForIdle(waitIdleS);
    const before = cpuSnapshot(); // with Chromium up, so its processes count as ours
    const result = await measure();
    const others = othersShare(before, cpuSnapshot());
    if (!best || (others ?? 0) < (best.others ?? 0)) best = { result, others };
    if (others === undefined || others <= BUSY || attempt >= retries) return best;
    console.warn(`${what}: other processes used ${pct(others)} of the CPU meanwhile; measuring again (${attempt + 1}/${retries})`);
  }
}

/** A fresh-context run again (a new context) when its page reloaded midway. */
async function retryOnReload<R>(run: () => Promise<R>, attempts = 3): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || !isNavigationError(error)) throw error;
      console.warn(`a cold-start page reloaded midway (${String(error).split('\n')[0]}); measuring again in a new context`);
    }
  }
}

const p50p95 = (s: Summary) => (s.n === 0 || !Number.isFinite(s.p50) ? '–' : `${ms(s.p50)} / ${ms(s.p95)}`);
const verdict = (value: number, limit: number) => (value <= limit ? '**MET**' : '**MISSED**');

interface Measured {
  /** YYYY-MM-DD */
  measuredAt: string;
  /** where it ran: `${cores} cores, ${cpu model}` */
  machine: string;
  warm: WarmResult;
  colds: FreshPageRun<ColdStart>[];
  stages: FreshPageRun<ColdStages>[];
  /** absent in results saved before engine.warmUp() existed */
  warmStarts?: FreshPageRun<WarmStart>[];
  /** how the pages were served: vite's dev server (default) or a production build (--built) */
  served?: 'dev' | 'built';
  chromiumVersion: string;
  othersWarm: number | undefined;
  othersCold: number | undefined;
}

function renderDoc(m: Measured): string {
  const { warm, colds, stages } = m;
  const single = warm.cases.find((c) => c.id === 'single');
  const whole = warm.cases.find((c) => c.id === 'single-whole-frame');
  const coldTotals = colds.map((c) => c.result.firstResult);
  const coldMedian = median(coldTotals);
  const medianCold = colds.find((c) => c.result.firstResult === coldMedian);
  const backend = warm.backend;
  const built = m.served === 'built';
  const lines: string[] = [
    built ? '## /detect on the production build' : '## /detect: cold start and per-stage latency',
    '',
    `Measured ${m.measuredAt} by \`npm run bench${built ? ' -- --built' : ''}\` (tools/bench/detect.ts); regenerate rather than edit. ` +
      'Per-model inference times (load, first run, warm p50/p95 of every ONNX model) are in ' +
      '[models.md](models.md#inference-times-in-chromium-wasm).',
    '',
    `- Machine: ${m.machine} (page sees hardwareConcurrency ${warm.hardwareConcurrency}); ` +
      `other processes used ${pct(m.othersWarm)} of the CPU during the warm runs and at most ${pct(m.othersCold)} during a cold start ` +
      '(more than a few % skews the numbers)',
    `- Browser: headless Chromium ${m.chromiumVersion}, cross-origin isolated ${backend.crossOriginIsolated}; ` +
      (built
        ? 'pages built by `vite build` and served by `vite preview` (bundled, as `npm run demo` serves the app) on localhost'
        : "pages served by vite's dev server (unbundled modules, as `npm run dev`) on localhost"),
    `- Backend: ORT-web ${backend.backend} (requested ${backend.requested}), ${backend.threads} thread(s)${backend.note ? ` — ${backend.note}` : ''}`,
    `- Single-face photo: \`${SINGLE_FACE.source}\` cropped to x ${SINGLE_FACE.crop.x}–${SINGLE_FACE.crop.x + SINGLE_FACE.crop.width}, ` +
      `y ${SINGLE_FACE.crop.y}–${SINGLE_FACE.crop.y + SINGLE_FACE.crop.height}, scaled to ${SINGLE_FACE.width}×${SINGLE_FACE.height}, ` +
      `JPEG quality ${SINGLE_FACE.quality}${single ? ` (${(single.image.bytes / 1024).toFixed(0)} KB)` : ''}, made in the page; ` +
      `group photo: \`${GROUP.source}\`${warm.cases.find((c) => c.id === 'group') ? ` (${dims(warm.cases.find((c) => c.id === 'group')!)})` : ''}`,
    '',
  ];

  lines.push('### Targets', '', '| target | measured | |', '|---|--:|---|');
  if (single) {
    lines.push(
      `| single-face /detect with its attributes (age, gender, race), p50 ≤ ${TARGETS.detectP50} ms: \`engine.detect()\` end to end | ${ms(single.engineE2e.p50)} ms | ${verdict(single.engineE2e.p50, TARGETS.detectP50)} |`,
      `| detection alone ≤ ${TARGETS.detectionP50} ms: the worker's detect stage, p50, default request (minHeadScale 0.015 → ${single.views} detector views) | ${ms(single.stages.detect.p50)} ms | ${verdict(single.stages.detect.p50, TARGETS.detectionP50)} |`,
    );
  }
  if (whole) {
    lines.push(
      `| … the same with minHeadScale 0.2 (${whole.views} view: the detector's own cost) | ${ms(whole.stages.detect.p50)} ms | ${verdict(whole.stages.detect.p50, TARGETS.detectionP50)} |`,
    );
  }
  if (colds.length) {
    lines.push(
      `| cold start ≤ ${TARGETS.coldStart / 1000} s: navigation → first \`engine.detect()\` result, median of ${colds.length} | ${ms(coldMedian)} ms | ${verdict(coldMedian, TARGETS.coldStart)} |`,
    );
  }
  lines.push('');

  if (colds.length) {
    lines.push(
      '### Cold start',
      '',
      'Each run is a new browser context: empty HTTP cache and no cached compiled code (ORT\'s WASM is fetched and compiled again)' +
        (built ? '. ' : "; vite's server-side transforms were warm (the warm runs went first). ") +
        'The page creates the engine as its module starts ' +
        '(`createEngine({ backend })`) and, in parallel, makes the photo; models load lazily inside the first `engine.detect()`. ' +
        'Times are ms since navigation start.',
      '',
      '| run | page module running | engine ready | photo ready | first /detect result | second /detect (ms) | requests | transferred MB |',
      '|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    colds.forEach((c, i) => {
      const r = c.result;
      lines.push(
        `| ${i + 1}${c === medianCold ? ' (median)' : ''} | ${ms(r.moduleStart)} | ${ms(r.engineReady)} | ${ms(r.photoReady)} | **${ms(r.firstResult)}** | ${ms(r.secondDetectMs)} | ${c.requests} | ${(c.bytes / 1e6).toFixed(1)} |`,
      );
    });
    lines.push('');
  }

  const warmStarts = m.warmStarts ?? [];
  if (warmStarts.length) {
    const waits = warmStarts.map((w) => w.result.firstDetectMs);
    const mid = warmStarts[waits.indexOf(median(waits))]!.result;
    lines.push(
      `**With \`engine.warmUp()\`** (what the demo does: the models load and run once right after \`createEngine()\`, while the user picks a photo; fresh context each, median of ${warmStarts.length}): ` +
        `the warm-up takes ${ms(mid.warmUpMs)} ms (models warm ${ms(mid.warmedUp)} ms after navigation), and the first /detect after it answers in **${ms(median(waits))} ms** ` +
        `(runs: ${waits.map(ms).join(', ')}) instead of the first-request cost above` +
        (mid.firstTimings
          ? ` (worker stages of that run: decode ${ms(mid.firstTimings.decode)}, detect ${ms(mid.firstTimings.detect)}, mesh ${ms(mid.firstTimings.mesh)}, demographics ${ms(mid.firstTimings.demographics)}; the second /detect ${ms(mid.secondDetectMs)} ms)`
          : '') +
        '.',
      '',
    );
  }

  if (stages.length) {
    const totals = stages.map((s) => s.result.firstDetectMs + s.result.initMs);
    const mid = stages[totals.indexOf(median(totals))]!.result;
    const t = mid.firstTimings;
    const detector = Object.keys(mid.loadMs)[0]!;
    const loads = Object.entries(mid.loadMs);
    const loadOf = (id: string) => mid.loadMs[id] ?? Number.NaN;
    lines.push(
      `Where the first request's time goes (a separate fresh context per run, the same request through the worker API so the worker's stage times are visible; the run with the median total of ${stages.length}):`,
      '',
      '| part | ms |',
      '|---|--:|',
      `| navigation → page module running (HTML, ${colds[0]?.result.pageScripts ?? '?'} page scripts from the ${built ? 'build' : 'dev server'}) | ${ms(mid.moduleStart)} |`,
      `| start worker + \`init()\` (ORT's JS, backend choice, model manifest) — what \`createEngine()\` waits for | ${ms(mid.initMs)} |`,
      `| first /detect, page side | ${ms(mid.firstDetectMs)} |`,
      `| ↳ decode | ${ms(t.decode)} |`,
      `| ↳ detect stage (${mid.firstViews} views): ORT WASM init ≈ ${ms(mid.ortInitMs)} + ${detector} load ≈ ${ms(loadOf(detector) - mid.ortInitMs)} + first runs | ${ms(t.detect)} |`,
      `| ↳ mesh stage: facemesh load ${ms(loadOf('facemesh'))} + first run | ${ms(t.mesh)} |`,
      `| ↳ demographics stage: ${demographicsModels(DEMOGRAPHICS).map((id) => `${id} load ${ms(loadOf(id))}`).join(' + ')} + first runs | ${ms(t.demographics)} |`,
      `| ↳ worker total | ${ms(t.total)} |`,
      `| second /detect, page side (worker: detect ${ms(mid.secondTimings.detect)}, mesh ${ms(mid.secondTimings.mesh)}, demographics ${ms(mid.secondTimings.demographics)}) | ${ms(mid.secondDetectMs)} |`,
      '',
      `Model loads (fetch + session creation) total ${ms(loads.reduce((a, [, v]) => a + v, 0))} ms, ORT's WASM init included.`,
      '',
    );
  }

  lines.push(
    '### Warm',
    '',
    `p50 / p95 in ms over the timed runs, after ≥${warm.warmup} and ≥1 s of warm-up runs per case. Stage columns are the worker's own \`timings\` ` +
      "from `analyze()` called with the /detect service's options (demographics on, emotion off, mesh not kept; `detect()` from " +
      'src/service/detect.ts on the worker API); *service* is that call end to end as the page sees it, *engine.detect* is the ' +
      "public API end to end (its own worker; all engine runs come first and that worker is closed before the service path starts, so only one ORT worker is ever alive). *other* = worker total − named stages (quality " +
      'crop, sorting). With fewer than 20 runs p95 is the slowest run.',
    '',
    '| case | runs | faces | views | decode | detect (crop + model) | mesh | demographics | liveness | other | worker total | service | **engine.detect** |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const c of warm.cases) {
    lines.push(
      `| ${c.label} | ${c.runs} | ${c.faces} | ${c.views} | ${p50p95(c.stages.decode)} | ${p50p95(c.stages.detect)} (${ms(c.detectorCrop.p50)} + ${ms(c.detectorInfer.p50)}) | ` +
        `${p50p95(c.stages.mesh)} | ${p50p95(c.stages.demographics)} | ${c.stages.liveness.p50 > 0 ? p50p95(c.stages.liveness) : '–'} | ${p50p95(c.stages.other)} | ` +
        `${p50p95(c.stages.total)} | ${p50p95(c.serviceE2e)} | **${p50p95(c.engineE2e)}** |`,
    );
  }
  const group = warm.cases.find((c) => c.id === 'group');
  if (group && group.faces > 0) {
    lines.push(
      '',
      `Per face in the group photo (p50 ÷ ${group.faces}): mesh ${ms(group.stages.mesh.p50 / group.faces)} ms, demographics ${ms(group.stages.demographics.p50 / group.faces)} ms.`,
    );
  }
  return lines.join('\n');
}

function dims(c: WarmCase): string {
  return `${c.image.width}×${c.image.height}, ${(c.image.bytes / 1024).toFixed(0)} KB`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      'group-runs': { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      'cold-runs': { type: 'string', default: '3' },
      cases: { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      threads: { type: 'string' },
      'wait-idle': { type: 'string', default: '0' },
      retries: { type: 'string', default: '0' },
      console: { type: 'boolean', default: false },
      json: { type: 'string' },
      from: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      built: { type: 'boolean', default: false },
    },
  });
  const options: WarmOptions = {
    runs: Number(values.runs),
    groupRuns: Number(values['group-runs']),
    warmup: Number(values.warmup),
    cases: values.cases?.split(',').map((s) => s.trim()),
  };
  const coldRuns = Number(values['cold-runs']);
  if (!(options.runs! >= 1) || !(options.groupRuns! >= 1) || !(options.warmup! >= 0) || !(coldRuns >= 0)) {
    throw new Error('--runs and --group-runs must be >= 1, --warmup and --cold-runs >= 0');
  }
  if (!['wasm', 'auto', 'webgpu'].includes(values.backend)) throw new Error('--backend must be wasm, auto or webgpu');
  const query = new URLSearchParams({ backend: values.backend });
  if (values.threads !== undefined) query.set('threads', values.threads);

  const waitIdle = Number(values['wait-idle']);
  const retries = Number(values.retries);
  if (!(retries >= 0)) throw new Error('--retries must be >= 0');
  const served = values.built ? 'built' : 'dev';
  const sessionOptions = { console: values.console, callTimeoutMs: 1_800_000, builtPages: values.built ? [PAGE] : undefined };
  const measure = () => withBrowserSession(sessionOptions, async (session): Promise<Measured> => {
    // warm runs first: they also warm vite's transform cache, so cold starts time the browser, not vite
    const warmPage = `${PAGE}?${query}`;
    watchReloads(session.page, 'warm page');
    await session.open(warmPage);
    const warm = await quietly('warm runs', waitIdle, retries, () => callSurvivingReloads<WarmResult>(session, warmPage, 'benchWarm', [options]));
    await session.page.goto('about:blank'); // nothing of the warm page keeps running

    const colds: FreshPageRun<ColdStart>[] = [];
    const stages: FreshPageRun<ColdStages>[] = [];
    const warmStarts: FreshPageRun<WarmStart>[] = [];
    let othersCold: number | undefined;
    for (let i = 0; i < coldRuns; i++) {
      console.log(`cold start ${i + 1}/${coldRuns}`);
      const run = await quietly(`cold start ${i + 1}`, waitIdle, retries, async () => ({
        cold: await retryOnReload(() => inFreshContext<ColdStart>(session, `${PAGE}?mode=cold&${query}`, 'coldStart', 120_000)),
        stages: await retryOnReload(() => inFreshContext<ColdStages>(session, `${PAGE}?mode=coldstages&${query}`, 'coldStages', 120_000)),
        warmStart: await retryOnReload(() => inFreshContext<WarmStart>(session, `${PAGE}?mode=warmstart&${query}`, 'warmStart', 120_000)),
      }));
      colds.push(run.result.cold);
      stages.push(run.result.stages);
      warmStarts.push(run.result.warmStart);
      if (run.others !== undefined) othersCold = Math.max(othersCold ?? 0, run.others);
    }
    return {
      measuredAt: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} cores, ${cpuModel()}`,
      warm: warm.result,
      colds,
      stages,
      warmStarts,
      served,
      chromiumVersion: session.browser.version(),
      othersWarm: warm.others,
      othersCold,
    };
  });
  const measured: Measured = values.from ? (JSON.parse(readFileSync(values.from, 'utf8')) as Measured) : await measure();
  for (const [what, share] of [['warm runs', measured.othersWarm], ['cold starts', measured.othersCold]] as const) {
    if (share !== undefined && share > BUSY) console.warn(`warning: other processes used ${pct(share)} of the CPU during the ${what}; timings are inflated`);
  }
  if (values.json) writeFileSync(values.json, JSON.stringify(measured, null, 1));
  const doc = renderDoc(measured);
  console.log(doc);
  if (!values['no-write']) {
    const markers = measured.served === 'built' ? { start: BUILT_START, end: BUILT_END } : { start: START, end: END };
    writeBetweenMarkers(DOC, markers, doc, { template: DOC_TEMPLATE, appendMarkers: true });
    console.log(`\nwritten to ${DOC}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
