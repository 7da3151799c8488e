// `npm run bench:peers`: @vladmandic/human, @vladmandic/face-api and this engine side by side
// in one headless Chromium (each on its own WASM backend, 2 threads, every face model on), on
// the same photos: the 640×480 single face, the 18 group photos, every image of faces/ and
// groups/ by size band, cold starts (fresh browser context) with a small and a large first
// photo, the bytes each fetches until its first answer, and the faces each finds next to the
// manifest's counts. Written into docs/benchmarks.md between the peers-bench markers.
//   --passes N (5)          measured passes over every photo (medians per photo)
//   --warmup N (2)          untimed rounds over the warm-up photos first (and ≥ 3 s)
//   --single-repeats N (3)  the single face goes N times into each pass
//   --cold-runs N (6)       cold starts per library and first photo (median; with 2 the ratio moved by ±0.05 between runs)
//   --threads N (2)         WASM threads for every library
//   --engine lib|src (lib)  this engine from the npm package's build (npm run build:lib runs first:
//                           one ESM file + its worker, as apps load it) or its source modules
//                           one by one through vite's dev server
//   --tfjs-native-threads   let tfjs-backend-wasm keep its own cap of hardwareConcurrency / 2 threads
//                           (1 on 2 cores) instead of making it run --threads
//   --wait-idle S (0)       before the warm passes and each cold start, wait up to S s for other processes to settle
//   --only TEXT             only data photos whose path contains TEXT (a quick check; no doc write)
//   --browser NAME (chromium) chromium, firefox or webkit (tools/harness/browsers.ts); firefox and
//                           webkit run the warm passes only (peers-browsers.ts), into a section of their own
//   --no-isolation          the pages without COOP/COEP (not cross-origin isolated: one WASM thread for
//                           every library), warm passes only, into a section of its own
//   --console (page logs)  --json FILE (raw results)  --no-write (stdout only)
//   --from FILE (no measuring: render what a --json run saved)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { chromiumArgs, chromiumPath } from '../browser-env.ts';
import { projectRoot, withBrowserSession, type BrowserSession } from '../harness/browser-session.ts';
import { callOnNewPage } from '../harness/page-call.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import { SINGLE_FACE } from './detect-photos.ts';
import type { EngineBuild, PeerRuntime } from './pages/peer-adapter.ts';
import type { PeerCold } from './pages/peer-frame.ts';
import type { Call, SetupResult } from './pages/peers.ts';
import {
  BANDS,
  LIBRARY_KINDS,
  PEER_LABELS,
  PEERS,
  bandTotals,
  bytesByKind,
  engineRatios,
  fetchKind,
  inlineSourceMapBytes,
  peerOrder,
  perImageMedians,
  ratio,
  sumOfMedians,
  type BenchImage,
  type FetchKind,
  type FetchedResponse,
  type Peer,
  type Samples,
} from './peers-data.ts';
import { ManifestSchema, benchImages } from './peers-manifest.ts';
import { crossMarkers, measureInBrowser, renderCross, type CrossMeasured } from './peers-browsers.ts';
import { BROWSER_NAMES, type BrowserName } from '../harness/browsers.ts';
import { cpuModel, ms, pct, waitForIdle, writeBetweenMarkers } from './report.ts';
import { median } from './stats.ts';

const START = '<!-- peers-bench:start -->';
const END = '<!-- peers-bench:end -->';
const DOC = resolve(projectRoot, 'docs/benchmarks.md');
const DOC_TEMPLATE = `# Benchmarks\n\n${START}\n${END}\n`;
const DATA = resolve(projectRoot, '../shared/data');
const PAGE = '/tools/bench/pages/peers.html';
const FRAME = '/tools/bench/pages/peer-frame.html';
const SINGLE_ID = 'single';
/**
 * the libraries' own files, sent as they are on disk (as a static server or CDN would) rather than
 * through vite's transforms, which inline each bundle's source map into it: human's 2.1 MB bundle
 * was served as 7.0 MB, the engine's 0.4 MB entry and 0.3 MB worker as 1.9 and 1.7 MB, and every
 * byte of it parsed before the library could start
 */
const LIBRARY_FILES = ['/dist/lib/', '/node_modules/@vladmandic/human/dist/', '/node_modules/@vladmandic/face-api/dist/', '/node_modules/@tensorflow/tfjs-backend-wasm/dist/'];
const WARMUP_MIN_MS = 3000;
const COLD_TIMEOUT_MS = 180_000;
/** after a cold start, how long the page stays open before the revisit: V8 writes its WASM code cache a few seconds after tier-up */
const REVISIT_AFTER_MS = 5000;
/** photos per page call within a pass */
const PASS_CHUNK = 12;

interface ColdRun {
  peer: Peer;
  /** which first photo: the small single face or the largest data photo */
  first: 'small' | 'large';
  result: PeerCold;
  /** responses that finished before the first result, with their body bytes */
  responses: FetchedResponse[];
  /** small first photo only: the page's second visit in a browser profile on disk (HTTP and V8 code caches kept) */
  revisit?: PeerCold;
}

interface Measured {
  /** YYYY-MM-DD */
  measuredAt: string;
  machine: string;
  chromiumVersion: string;
  versions: Record<string, string>;
  options: { passes: number; warmup: number; singleRepeats: number; coldRuns: number; threads: number; tfjsNativeThreads?: boolean; engineBuild?: EngineBuild; only?: string };
  images: BenchImage[];
  largePhoto: string;
  setup: SetupResult;
  /** measured calls only (no warm-up) */
  calls: Call[];
  runtimes: Record<Peer, PeerRuntime>;
  colds: ColdRun[];
  othersWarm: number | undefined;
  othersCold: number | undefined;
  /** wall-clock seconds of the whole measurement */
  durationS: number;
}

/** The npm package's build, fresh from the current source (what `npm pack` would ship). */
function buildEngineLib(): void {
  console.log('building the engine package (npm run build:lib)');
  execFileSync('npm', ['run', 'build:lib', '--silent'], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** where the engine's first answer went (its diagnostics), for the cold-start log line */
function firstAnswerNote(result: PeerCold): string {
  const first = result.runtime.firstAnswer;
  if (!first) return '';
  const stages = Object.entries(first.stages).filter(([k, v]) => k !== 'total' && v >= 1);
  return (
    ` (started ${ms(result.ready)}; createEngine ${ms(first.startupMs)} ms; first /detect in the worker ${ms(first.stages.total ?? Number.NaN)} ms: ` +
    `${stages.map(([k, v]) => `${k} ${ms(v)}`).join(', ')}; model loads ${first.modelLoads.map((l) => `${l.id} ${ms(l.loadMs)}`).join(', ')})`
  );
}

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(resolve(projectRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Opens `path` in a new browser context (empty HTTP and code caches) and returns what its
 * coldStart() resolves to, with the responses that finished before it resolved.
 */
async function coldStart(session: BrowserSession, path: string): Promise<{ result: PeerCold; responses: FetchedResponse[] }> {
  const context = await session.browser.newContext();
  try {
    const finished: Promise<FetchedResponse>[] = [];
    const seen = new Set<string>();
    context.on('requestfinished', (request) => {
      // each URL once: a module the page and a worker both import is fetched once
      const url = request.url();
      // blob: and data: URLs (tfjs's thread workers) are made in the page, not fetched
      if (seen.has(url) || !/^https?:/.test(url)) return;
      seen.add(url);
      finished.push(
        (async () => {
          // the body itself: Playwright's responseBodySize is 0 or negative for some worker requests
          const body = await (await request.response())?.body().catch(() => undefined);
          if (!body) return { url, bytes: await request.sizes().then((s) => Math.max(0, s.responseBodySize), () => 0) };
          return { url, bytes: body.length, ...(fetchKind(url) === 'code' ? { sourceMapBytes: inlineSourceMapBytes(body.toString('latin1')) } : {}) };
        })(),
      );
    });
    const result = await callOnNewPage<PeerCold>(context, session.baseUrl, path, 'coldStart', { timeoutMs: COLD_TIMEOUT_MS });
    // the responses that finished until the first answer
    const before = finished.length;
    return { result, responses: await Promise.all(finished.slice(0, before)) };
  } finally {
    await context.close().catch(() => {});
  }
}

/**
 * A returning visitor: a fresh browser profile on disk (a new context's in-memory cache does not
 * keep ORT's 14 MB WASM: measured, a second visit there downloaded it again) visits `path` once,
 * stays a few seconds so V8 can write its WASM code cache, closes the page, and
 * opens it again; returns what the second visit's coldStart() resolves to.
 */
async function secondVisit(session: BrowserSession, path: string): Promise<PeerCold> {
  const profile = mkdtempSync(join(tmpdir(), 'peers-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, args: chromiumArgs, headless: true });
  try {
    await callOnNewPage<PeerCold>(context, session.baseUrl, path, 'coldStart', { timeoutMs: COLD_TIMEOUT_MS });
    await new Promise((r) => setTimeout(r, REVISIT_AFTER_MS));
    await Promise.all(context.pages().map((p) => p.close()));
    return await callOnNewPage<PeerCold>(context, session.baseUrl, path, 'coldStart', { timeoutMs: COLD_TIMEOUT_MS });
  } finally {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  }
}

async function measure(values: Options): Promise<Measured> {
  const started = Date.now();
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(resolve(DATA, 'manifest.json'), 'utf8')));
  const images = benchImages(manifest).filter((i) => !values.only || i.path.includes(values.only));
  if (!images.length) throw new Error(`no bench images${values.only ? ` contain "${values.only}"` : ''}`);
  const largest = images.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
  const ids = [SINGLE_ID, ...images.map((i) => i.path)];
  // warm-up: the single face and the largest photo of each band (every model, every input size class)
  const warmIds = [SINGLE_ID, ...BANDS.flatMap((b) => {
    const inBand = images.filter((i) => i.band === b.id);
    return inBand.length ? [inBand.reduce((a, c) => (c.width * c.height > a.width * a.height ? c : a)).path] : [];
  })];

  return withBrowserSession({ console: values.console, callTimeoutMs: 600_000, timeoutMs: 120_000, optimizeEntries: [PAGE, FRAME], staticPaths: LIBRARY_FILES }, async (session) => {
    await session.open(PAGE);
    await waitForIdle(values.waitIdle);
    const before = cpuSnapshot();
    console.log(`starting the three libraries and loading ${ids.length} photos`);
    const setup = await session.call<SetupResult>('setup', { ids, threads: values.threads, tfjsNativeThreads: values.tfjsNativeThreads, engineBuild: values.engineBuild });
    for (const peer of PEERS) {
      if (!setup.frames[peer].crossOriginIsolated) throw new Error(`${peer}'s frame is not cross-origin isolated: no WASM threads`);
    }
    console.log(`warm-up: ${values.warmup} round(s) over ${warmIds.length} photos (≥ ${WARMUP_MIN_MS / 1000} s)`);
    await session.call('warmUp', { ids: warmIds, rounds: values.warmup, minMs: WARMUP_MIN_MS });
    const calls: Call[] = [];
    const passIds = [...Array<string>(values.singleRepeats).fill(SINGLE_ID), ...images.map((i) => i.path)];
    for (let p = 0; p < values.passes; p++) {
      const t = Date.now();
      // in chunks, so progress shows and no single page call runs for minutes
      for (let from = 0; from < passIds.length; from += PASS_CHUNK) {
        const chunk = await session.call<Call[]>('pass', { ids: passIds.slice(from, from + PASS_CHUNK), index: p + from });
        calls.push(...chunk);
        if (values.progressFile) writeFileSync(values.progressFile, JSON.stringify({ partial: true, images, calls }, null, 1));
        const slowest = chunk.reduce((a, c) => (c.ms > a.ms ? c : a));
        console.log(
          `pass ${p + 1}/${values.passes}: ${Math.min(from + PASS_CHUNK, passIds.length)}/${passIds.length} photos, ${((Date.now() - t) / 1000).toFixed(0)} s ` +
            `(slowest: ${slowest.peer} on ${slowest.id}, ${ms(slowest.ms)} ms)`,
        );
      }
    }
    const runtimes = await session.call<Record<Peer, PeerRuntime>>('finish');
    const othersWarm = othersShare(before, cpuSnapshot());
    await session.page.goto('about:blank');

    const colds: ColdRun[] = [];
    let othersCold: number | undefined;
    const firsts = [
      { first: 'small', photo: SINGLE_ID },
      { first: 'large', photo: largest.path },
    ] as const;
    for (let r = 0; r < values.coldRuns; r++) {
      for (const [f, { first, photo }] of firsts.entries()) {
        for (const peer of peerOrder(r + f)) {
          const snapshot = cpuSnapshot();
          const query = new URLSearchParams({
            peer,
            threads: String(values.threads),
            mode: 'cold',
            photo,
            engine: values.engineBuild,
            ...(values.tfjsNativeThreads ? { tfjs: 'native' } : {}),
          });
          await waitForIdle(values.waitIdle);
          const { result, responses } = await coldStart(session, `${FRAME}?${query}`);
          const others = othersShare(snapshot, cpuSnapshot());
          if (others !== undefined) othersCold = Math.max(othersCold ?? 0, others);
          // (not in the load count: the second visit's own browser has exited by the next snapshot, so its CPU would read as others')
          const revisit = first === 'small' ? await secondVisit(session, `${FRAME}?${query}`) : undefined;
          console.log(`cold start ${r + 1}/${values.coldRuns}, ${first} first photo, ${peer}: ${ms(result.firstResult)} ms${firstAnswerNote(result)}`);
          if (revisit) console.log(`  revisit: ${ms(revisit.firstResult)} ms${firstAnswerNote(revisit)}`);
          colds.push({ peer, first, result, responses, ...(revisit ? { revisit } : {}) });
        }
      }
    }
    return {
      measuredAt: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} cores, ${cpuModel()}`,
      chromiumVersion: session.browser.version(),
      versions: Object.fromEntries(
        ['@vladmandic/human', '@vladmandic/face-api', '@tensorflow/tfjs-backend-wasm', 'onnxruntime-web'].map((n) => [n, packageVersion(n)]),
      ),
      options: {
        passes: values.passes,
        warmup: values.warmup,
        singleRepeats: values.singleRepeats,
        coldRuns: values.coldRuns,
        threads: values.threads,
        tfjsNativeThreads: values.tfjsNativeThreads,
        engineBuild: values.engineBuild,
        ...(values.only ? { only: values.only } : {}),
      },
      images,
      largePhoto: largest.path,
      setup,
      calls,
      runtimes,
      colds,
      othersWarm,
      othersCold,
      durationS: (Date.now() - started) / 1000,
    };
  });
}

// ------------------------------------------------------------------------------ report

const seconds = (v: number) => (Number.isFinite(v) ? `${(v / 1000).toFixed(2)} s` : 'n/a');
const msOrS = (v: number) => (v >= 10_000 ? seconds(v) : `${ms(v)} ms`);
const x = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const cells = (times: Record<Peer, number>, format: (v: number) => string) => {
  const r = engineRatios(times);
  return `${PEERS.map((p) => format(times[p])).join(' | ')} | **${x(r.vsHuman)}** | ${x(r.vsFaceapi)}`;
};

function samplesOf(calls: readonly Call[], pick: (c: Call) => number): Samples {
  const out = Object.fromEntries(PEERS.map((p) => [p, {} as Record<string, number[]>])) as Samples;
  for (const c of calls) (out[c.peer][c.id] ??= []).push(pick(c));
  return out;
}

/** The faces a peer found on a photo: the one count when every call agreed, else "a–b". */
function facesFound(faces: Samples, peer: Peer, id: string): { text: string; value: number } {
  const counts = [...new Set(faces[peer][id] ?? [])].sort((a, b) => a - b);
  if (!counts.length) return { text: 'n/a', value: Number.NaN };
  return { text: counts.length === 1 ? String(counts[0]) : `${counts[0]}–${counts[counts.length - 1]}`, value: median(faces[peer][id]!) };
}

function renderDoc(m: Measured): string {
  const times = samplesOf(m.calls, (c) => c.ms);
  const faces = samplesOf(m.calls, (c) => c.faces);
  const ids = [SINGLE_ID, ...m.images.map((i) => i.path)];
  const medians = perImageMedians(times, ids);
  const groups = m.images.filter((i) => i.set === 'groups');
  const groupSums = sumOfMedians(
    medians,
    groups.map((i) => i.path),
  );
  const bands = bandTotals(m.images, medians);
  const single = Object.fromEntries(PEERS.map((p) => [p, medians[p][SINGLE_ID]!])) as Record<Peer, number>;
  const singleCalls = times.engine[SINGLE_ID]?.length ?? 0;
  const large = m.images.find((i) => i.path === m.largePhoto)!;
  const coldOf = (first: ColdRun['first']) =>
    Object.fromEntries(PEERS.map((p) => [p, median(m.colds.filter((c) => c.peer === p && c.first === first).map((c) => c.result.firstResult))])) as Record<Peer, number>;
  const revisits = Object.fromEntries(PEERS.map((p) => [p, median(m.colds.flatMap((c) => (c.peer === p && c.revisit ? [c.revisit.firstResult] : [])))])) as Record<Peer, number>;
  const coldRunsOf = (peer: Peer, first: ColdRun['first']) => m.colds.filter((c) => c.peer === peer && c.first === first);
  /** bytes of the small-photo cold start with the median first result, per peer */
  const medianCold = (peer: Peer, first: ColdRun['first']) => {
    const runs = coldRunsOf(peer, first);
    const mid = median(runs.map((c) => c.result.firstResult));
    return runs.find((c) => c.result.firstResult === mid);
  };
  const libraryBytes = Object.fromEntries(
    PEERS.map((p) => {
      const run = medianCold(p, 'small');
      const kinds = run ? bytesByKind(run.responses) : undefined;
      return [p, kinds ? LIBRARY_KINDS.reduce((s, k) => s + kinds[k], 0) : Number.NaN];
    }),
  ) as Record<Peer, number>;
  const v = m.versions;
  const rt = m.runtimes;
  const tfjsThreads = m.options.tfjsNativeThreads
    ? "tfjs-backend-wasm's own choice: it caps its pool at hardwareConcurrency / 2"
    : 'tfjs-backend-wasm caps its pool at hardwareConcurrency / 2 whatever setThreadsCount() asks, so its frames report twice the threads as cores';
  const reduced = m.options.passes < 5 || m.options.coldRuns < 6;

  const lines: string[] = [
    '## Side by side: human, face-api and this engine',
    '',
    `Measured ${m.measuredAt} by \`npm run bench:peers\` (tools/bench/peers.ts) in ${(m.durationS / 60).toFixed(1)} min; regenerate rather than edit.` +
      (m.options.only ? ` **Partial run: only photos whose path contains "${m.options.only}".**` : '') +
      (reduced ? ` **Reduced run (${m.options.passes} measured pass(es), ${m.options.coldRuns} cold run(s) per case): the defaults are 5 and 6.**` : ''),
    '',
    `- Machine: ${m.machine} (page sees hardwareConcurrency ${m.setup.hardwareConcurrency}); other processes used ${pct(m.othersWarm)} of the CPU during the warm passes ` +
      `and at most ${pct(m.othersCold)} during a cold start (more than a few % inflates the times, and not evenly: work split across 2 threads suffers most when the second core is busy; the three alternate call by call, so all see the same load)`,
    `- Browser: headless Chromium ${m.chromiumVersion}, pages from vite's dev server on localhost, the libraries' own files (${LIBRARY_FILES.join(', ')}) sent as they are on disk, as a static server or CDN would (not through vite's transforms, which inline a bundle's source map into it); ` +
      (m.options.engineBuild === 'lib'
        ? "the engine is the npm package's build (`npm run build:lib`: dist/lib/index.js and its worker file, ORT's files and the models, served as static files), as an app loads it; "
        : "the engine's source modules and its worker are fetched one by one (unbundled, larger than in a build); ") +
      'human and face-api are their published single-file ESM bundles. ' +
      'Each library runs in its own same-origin, cross-origin-isolated iframe: human and face-api each bundle tfjs, which keeps one engine per JS realm.',
    `- human ${v['@vladmandic/human']}: ${rt.human.backend}${rt.human.simd ? ' SIMD' : ''}, ${rt.human.threads} threads (${tfjsThreads}; wasm files of @tensorflow/tfjs-backend-wasm ${v['@tensorflow/tfjs-backend-wasm']} from node_modules); ` +
      'models from its own models folder: face detector (blazeface, maxDetected 100), mesh, iris, description (faceres), emotion, antispoof, liveness; body, hand, object, gesture off; ' +
      'result caching off (cacheSensitivity 0, no frame skipping: it is made for video and would otherwise answer a repeated photo from its cache); its image filter off (a WebGL pass, software-rendered here; its autoBrightness carries over between photos)',
    `- face-api ${v['@vladmandic/face-api']}: ${rt.faceapi.backend}${rt.faceapi.simd ? ' SIMD' : ''}, ${rt.faceapi.threads} threads (the same tfjs-backend-wasm files); ` +
      '`detectAllFaces(canvas, new SsdMobilenetv1Options())` (its default detector and options) `.withFaceLandmarks().withFaceExpressions().withAgeAndGender().withFaceDescriptors()`',
    `- this engine: \`createEngine({ backend: 'wasm', numThreads: ${m.options.threads} })\`, \`engine.detect({ image, selector: 'LIVENESS' })\` — the full /detect (detector views, mesh, demographics, liveness); ${rt.engine.backend} (onnxruntime-web ${v['onnxruntime-web']}), ${rt.engine.threads} threads`,
    '- Every call gets the same encoded photo (a Blob of the file\'s bytes) and is timed until the library\'s answer: human and face-api decode it with ' +
      "`createImageBitmap` (face-api then draws it into a canvas, as it takes no ImageBitmap), the engine decodes inside /detect.",
    `- Warm: ${m.options.warmup} untimed rounds (≥ ${WARMUP_MIN_MS / 1000} s) over the single face and each band's largest photo, then ${m.options.passes} measured passes; in a pass each photo goes to the three libraries one after another ` +
      `(who goes first rotates), the single face ${m.options.singleRepeats}× per pass. Times are medians per photo; sums add up the photos' medians.`,
    `- Cold: a new browser context (empty HTTP and code caches) per run, navigation → the first answer; the library starts as the page module runs while the photo is made in parallel; median of ${m.options.coldRuns} per library and first photo. ` +
      `Second visit: in a fresh browser profile on disk, the small-photo page is visited, stays open ${REVISIT_AFTER_MS / 1000} s, closes, and opens again (what a returning visitor gets from the browser's disk cache and V8's WASM code cache; no service worker; a new context's in-memory cache does not keep ORT's 14 MB WASM). ` +
      'Bytes: bodies of the responses Playwright saw finish in the context (page and workers; each URL once) before the first answer, without the photo, the bench page itself and the source maps vite\'s dev server inlines into scripts.',
    '',
    `| work | ${PEERS.map((p) => PEER_LABELS[p]).join(' | ')} | engine / human | engine / face-api |`,
    '|---|--:|--:|--:|--:|--:|',
    `| one face 640×480 (\`${SINGLE_FACE.source}\` cropped, as \`npm run bench\`), median of ${singleCalls} calls | ${cells(single, (t) => `${ms(t)} ms`)} |`,
  ];
  if (groups.length) lines.push(`| the ${groups.length} photos of groups/, sum | ${cells(groupSums, seconds)} |`);
  for (const b of bands) {
    if (b.images) lines.push(`| ${b.label}: ${b.images} photos of faces/ + groups/ (${b.megapixels.toFixed(1)} MP), sum | ${cells(b.sums, msOrS)} |`);
  }
  if (m.colds.length) {
    lines.push(
      `| cold start, small first photo (the 640×480 face) | ${cells(coldOf('small'), (t) => `${ms(t)} ms`)} |`,
      `| cold start, large first photo (\`${large.path}\`, ${large.width}×${large.height}, ${((large.width * large.height) / 1e6).toFixed(1)} MP) | ${cells(coldOf('large'), (t) => `${ms(t)} ms`)} |`,
      `| MB fetched until the first answer (code + wasm + models) | ${cells(libraryBytes, mb)} |`,
    );
    if (PEERS.every((p) => Number.isFinite(revisits[p]))) {
      lines.push(`| second visit, small first photo (profile on disk, 5 s after the first visit: HTTP and V8 code caches kept) | ${cells(revisits, (t) => `${ms(t)} ms`)} |`);
    }
  }
  lines.push('');

  if (m.colds.length) {
    lines.push(
      '### Cold starts',
      '',
      'The run with the median first answer per library and first photo; ms since navigation start. *library started*: `human.load()` / face-api\'s `loadFromUri()` of its five nets resolved (models loaded), ' +
        '`createEngine()` resolved (the engine loads its models inside the first request). MB by kind: code = JS (bundles; the engine\'s modules and worker), models = weights and their JSON.',
      '',
      '| library | first photo | page module running | library started | first answer | faces | requests | MB code | MB wasm | MB models |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const first of ['small', 'large'] as const) {
      for (const peer of PEERS) {
        const run = medianCold(peer, first);
        if (!run) continue;
        const kinds = bytesByKind(run.responses);
        const r = run.result;
        const counted = run.responses.filter((q) => (LIBRARY_KINDS as readonly FetchKind[]).includes(fetchKind(q.url))).length;
        lines.push(
          `| ${PEER_LABELS[peer]} | ${first === 'small' ? '640×480 face' : large.path} | ${ms(r.moduleStart)} | ${ms(r.ready)} | **${ms(r.firstResult)}** | ${r.faces} | ${counted} | ${mb(kinds.code)} | ${mb(kinds.wasm)} | ${mb(kinds.models)} |`,
        );
      }
    }
    lines.push('', `All cold runs (first answer, ms): ${PEERS.map((p) => `${PEER_LABELS[p]} small ${coldRunsOf(p, 'small').map((c) => ms(c.result.firstResult)).join(', ')} / large ${coldRunsOf(p, 'large').map((c) => ms(c.result.firstResult)).join(', ')}`).join('; ')}.`, '');
  }

  if (groups.length) {
    lines.push(
      '### Group photos, per photo',
      '',
      'Median ms per photo (faces found in brackets; the manifest\'s count is a helper\'s visual count, approximate on the crowded ones).',
      '',
      `| photo | size | faces (manifest) | ${PEERS.map((p) => `${PEER_LABELS[p]} ms (faces)`).join(' | ')} | engine / human |`,
      '|---|--:|--:|--:|--:|--:|--:|',
    );
    for (const g of groups) {
      const row = Object.fromEntries(PEERS.map((p) => [p, medians[p][g.path]!])) as Record<Peer, number>;
      lines.push(
        `| ${g.path.replace('groups/', '')} | ${g.width}×${g.height} | ${g.expectedFaces ?? '?'} | ${PEERS.map((p) => `${ms(row[p])} (${facesFound(faces, p, g.path).text})`).join(' | ')} | ${x(ratio(row.engine, row.human))} |`,
      );
    }
    lines.push('');
  }

  // faces found against the manifest
  const sets = [
    { label: 'groups/', images: groups },
    { label: 'faces/ (one face each)', images: m.images.filter((i) => i.set === 'faces') },
  ].filter((s) => s.images.length);
  lines.push(
    '### Faces found',
    '',
    'Per set: faces found (sum over photos) against the manifest\'s face_count; photos with exactly the manifest\'s count; photos with fewer; photos with more. ' +
      'An extra box is not a win: look at the photos where counts differ (below).',
    '',
    `| set | manifest | ${PEERS.map((p) => PEER_LABELS[p]).join(' | ')} |`,
    '|---|--:|--:|--:|--:|',
  );
  for (const s of sets) {
    const expected = s.images.reduce((sum, i) => sum + (i.expectedFaces ?? 0), 0);
    const summary = (peer: Peer) => {
      let found = 0;
      let exact = 0;
      let fewer = 0;
      let more = 0;
      for (const i of s.images) {
        const f = facesFound(faces, peer, i.path).value;
        found += f;
        if (i.expectedFaces === null) continue;
        if (f === i.expectedFaces) exact++;
        else if (f < i.expectedFaces) fewer++;
        else more++;
      }
      return `${found} (${exact} exact, ${fewer} fewer, ${more} more)`;
    };
    lines.push(`| ${s.label} (${s.images.length} photos) | ${expected} | ${PEERS.map(summary).join(' | ')} |`);
  }
  const differing = m.images.filter((i) => PEERS.some((p) => facesFound(faces, p, i.path).value !== i.expectedFaces));
  if (differing.length) {
    lines.push(
      '',
      'Photos where a library\'s count differs from the manifest:',
      '',
      `| photo | manifest | ${PEERS.map((p) => PEER_LABELS[p]).join(' | ')} | manifest note |`,
      '|---|--:|--:|--:|--:|---|',
    );
    for (const i of differing) {
      const note = (i.notes ?? '').replace(/\|/g, '/');
      lines.push(
        `| ${i.path} | ${i.expectedFaces ?? '?'} | ${PEERS.map((p) => {
          const f = facesFound(faces, p, i.path);
          return f.value === i.expectedFaces ? f.text : `**${f.text}**`;
        }).join(' | ')} | ${note.length > 70 ? `${note.slice(0, 70)}…` : note} |`,
      );
    }
  }
  return lines.join('\n');
}

// ------------------------------------------------------------------------------ main

interface Options {
  passes: number;
  warmup: number;
  singleRepeats: number;
  coldRuns: number;
  threads: number;
  tfjsNativeThreads: boolean;
  engineBuild: EngineBuild;
  waitIdle: number;
  only?: string;
  console: boolean;
  /** where to save the calls measured so far after every chunk (the --json file) */
  progressFile?: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      passes: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '2' },
      'single-repeats': { type: 'string', default: '3' },
      'cold-runs': { type: 'string', default: '6' },
      threads: { type: 'string', default: '2' },
      'tfjs-native-threads': { type: 'boolean', default: false },
      engine: { type: 'string', default: 'lib' },
      'wait-idle': { type: 'string', default: '0' },
      only: { type: 'string' },
      console: { type: 'boolean', default: false },
      json: { type: 'string' },
      from: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      browser: { type: 'string', default: 'chromium' },
      'no-isolation': { type: 'boolean', default: false },
    },
  });
  const options: Options = {
    passes: Number(values.passes),
    warmup: Number(values.warmup),
    singleRepeats: Number(values['single-repeats']),
    coldRuns: Number(values['cold-runs']),
    threads: Number(values.threads),
    tfjsNativeThreads: values['tfjs-native-threads'],
    engineBuild: values.engine as EngineBuild,
    waitIdle: Number(values['wait-idle']),
    only: values.only,
    progressFile: values.json,
    console: values.console,
  };
  for (const [name, value, min] of [['passes', options.passes, 1], ['warmup', options.warmup, 0], ['single-repeats', options.singleRepeats, 1], ['cold-runs', options.coldRuns, 0], ['threads', options.threads, 1], ['wait-idle', options.waitIdle, 0]] as const) {
    if (!(Number.isInteger(value) && value >= min)) throw new Error(`--${name} must be an integer ≥ ${min}`);
  }
  if (!['lib', 'src'].includes(options.engineBuild)) throw new Error('--engine must be lib or src');
  const browser = values.browser as BrowserName;
  if (!BROWSER_NAMES.includes(browser)) throw new Error(`--browser must be one of ${BROWSER_NAMES.join(', ')}`);
  const saved = values.from ? (JSON.parse(readFileSync(values.from, 'utf8')) as Measured | CrossMeasured) : undefined;
  if ((saved && 'kind' in saved) || (!saved && (browser !== 'chromium' || values['no-isolation']))) {
    await crossBrowser(saved as CrossMeasured | undefined, { ...options, browser, isolation: !values['no-isolation'] }, values.json, values['no-write']);
    return;
  }
  if (!values.from && options.engineBuild === 'lib') buildEngineLib();
  const measured: Measured = (saved as Measured | undefined) ?? (await measure(options));
  if (values.json) writeFileSync(values.json, JSON.stringify(measured, null, 1));
  for (const [what, share] of [['warm passes', measured.othersWarm], ['cold starts', measured.othersCold]] as const) {
    if (share !== undefined && share > 0.05) console.warn(`warning: other processes used ${pct(share)} of the CPU during the ${what}; times are inflated`);
  }
  const doc = renderDoc(measured);
  console.log(`\n${doc}\n`);
  console.log(`took ${(measured.durationS / 60).toFixed(1)} min`);
  if (measured.options.only) console.log('a partial run (--only): docs/benchmarks.md left alone');
  else if (!values['no-write']) {
    writeBetweenMarkers(DOC, { start: START, end: END }, doc, { template: DOC_TEMPLATE, appendMarkers: true });
    console.log(`written to ${DOC}`);
  }
}

/** Firefox, WebKit, or Chromium without COOP/COEP: warm passes through the shared launchers (peers-browsers.ts). */
async function crossBrowser(saved: CrossMeasured | undefined, options: Options & { browser: BrowserName; isolation: boolean }, json: string | undefined, noWrite: boolean): Promise<void> {
  const measured =
    saved ??
    (await measureInBrowser({
      browser: options.browser,
      isolation: options.isolation,
      passes: options.passes,
      warmup: options.warmup,
      singleRepeats: options.singleRepeats,
      threads: options.threads,
      engineBuild: options.engineBuild,
      waitIdle: options.waitIdle,
      only: options.only,
      console: options.console,
      progressFile: json,
    }));
  if (json) writeFileSync(json, JSON.stringify(measured, null, 1));
  const doc = renderCross(measured);
  console.log(`\n${doc}\n`);
  if (measured.options.only) console.log('a partial run (--only): docs/benchmarks.md left alone');
  else if (!noWrite) {
    writeBetweenMarkers(DOC, crossMarkers(measured.browser, measured.isolation), doc, { template: DOC_TEMPLATE.replace(START, '').replace(END, ''), appendMarkers: true });
    console.log(`written to ${DOC}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
