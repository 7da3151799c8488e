// bench:peers' report: what a run measured (both configurations, warm passes and Chromium's
// cold starts) as the markdown section docs/benchmarks.md keeps between markers, one per browser.
import type { BrowserName } from '../harness/browsers.ts';
import { SINGLE_FACE } from './detect-photos.ts';
import type { EngineBuild } from './pages/peer-adapter.ts';
import type { Call } from './pages/peers.ts';
import { REVISIT_AFTER_MS, type ColdRun } from './peers-cold.ts';
import type { WarmRun } from './peers-browsers.ts';
import {
  CONFIGS,
  LIBRARY_KINDS,
  PEER_LABELS,
  PEERS,
  SINGLE_ID,
  UPSCALE_MEGAPIXELS,
  UPSCALE_QUALITY,
  bytesByKind,
  engineRatios,
  fetchKind,
  ratio,
  type BenchImage,
  type ConfigId,
  type FetchKind,
  type Peer,
  type Samples,
} from './peers-data.ts';
import { renderRatioTable, samplesOf, warmTimes, type ConfigTimes } from './peers-summary.ts';
import { ms, pct } from './report.ts';
import { median } from './stats.ts';

export interface RunOptions {
  browser: BrowserName;
  quick: boolean;
  passes: number;
  warmup: number;
  singleRepeats: number;
  /** Chromium only (0 elsewhere) */
  coldRuns: number;
  revisit: boolean;
  /** upscaled sources per set */
  upscale: number;
  engineBuild: EngineBuild;
  tfjsNativeThreads: boolean;
  waitIdle: number;
  /** idle ms before every measured call (0: back to back) */
  settleMs?: number;
  console: boolean;
  only?: string;
}

export interface ConfigRun {
  config: ConfigId;
  warm: WarmRun;
  colds: ColdRun[];
  othersCold?: number;
}

export interface PeersRun {
  kind: 'peers-run';
  /** YYYY-MM-DD HH:MM UTC */
  measuredAt: string;
  machine: string;
  browser: BrowserName;
  versions: Record<string, string>;
  options: RunOptions;
  images: BenchImage[];
  /** the data path of the cold starts' large first photo */
  largePhoto: string;
  /** the configurations measured to the end, in order */
  configs: ConfigRun[];
  /** the passes of a configuration still running (a run cut short keeps them in its --json) */
  inProgress?: { config: ConfigId; calls: Call[] };
  /** set while the run is still going */
  partial?: boolean;
  durationS: number;
}

/** The section's markers in docs/benchmarks.md: Chromium's (with cold starts) and one pair per other browser. */
export function docMarkers(browser: BrowserName): { start: string; end: string } {
  const id = browser === 'chromium' ? 'peers-bench' : `peers-bench-${browser}`;
  return { start: `<!-- ${id}:start -->`, end: `<!-- ${id}:end -->` };
}

const seconds = (v: number) => (Number.isFinite(v) ? `${(v / 1000).toFixed(2)} s` : 'n/a');
const msOrS = (v: number) => (!Number.isFinite(v) ? 'n/a' : v >= 10_000 ? seconds(v) : `${ms(v)} ms`);
const x = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const mb = (bytes: number) => (Number.isFinite(bytes) ? (bytes / 1e6).toFixed(1) : 'n/a');
const cells = (times: Record<Peer, number>, format: (v: number) => string) => {
  const r = engineRatios(times);
  return `${PEERS.map((p) => format(times[p])).join(' | ')} | **${x(r.vsHuman)}** | ${x(r.vsFaceapi)}`;
};
const configOf = (id: ConfigId) => CONFIGS.find((c) => c.id === id)!;
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The faces a peer found on a photo: the one count when every call agreed, else "a–b". */
function facesFound(faces: Samples, peer: Peer, id: string): { text: string; value: number } {
  const counts = [...new Set(faces[peer][id] ?? [])].sort((a, b) => a - b);
  if (!counts.length) return { text: 'n/a', value: Number.NaN };
  return { text: counts.length === 1 ? String(counts[0]) : `${counts[0]}–${counts[counts.length - 1]}`, value: median(faces[peer][id]!) };
}

/** Cold starts of one configuration, per library and first photo. */
function coldStats(colds: readonly ColdRun[]) {
  const runsOf = (peer: Peer, first: ColdRun['first']) => colds.filter((c) => c.peer === peer && c.first === first);
  const perPeer = (f: (peer: Peer) => number) => Object.fromEntries(PEERS.map((p) => [p, f(p)])) as Record<Peer, number>;
  const firstAnswer = (first: ColdRun['first']) => perPeer((p) => median(runsOf(p, first).map((c) => c.result.firstResult)));
  /** the run with the median first answer */
  const medianRun = (peer: Peer, first: ColdRun['first']) => {
    const runs = runsOf(peer, first);
    const mid = median(runs.map((c) => c.result.firstResult));
    return runs.find((c) => c.result.firstResult === mid);
  };
  return {
    runsOf,
    medianRun,
    small: firstAnswer('small'),
    large: firstAnswer('large'),
    revisit: perPeer((p) => median(colds.flatMap((c) => (c.peer === p && c.revisit ? [c.revisit.firstResult] : [])))),
    libraryBytes: perPeer((p) => {
      const run = medianRun(p, 'small');
      const kinds = run ? bytesByKind(run.responses) : undefined;
      return kinds ? LIBRARY_KINDS.reduce((s, k) => s + kinds[k], 0) : Number.NaN;
    }),
  };
}

function configTimes(m: PeersRun, c: ConfigRun, timing: 'withDecode' | 'withoutDecode'): ConfigTimes {
  const cold = c.colds.length && timing === 'withDecode' ? coldStats(c.colds) : undefined;
  return { label: configOf(c.config).label, warm: warmTimes(m.images, c.warm.calls, timing), ...(cold ? { cold: { small: cold.small, large: cold.large } } : {}) };
}

function command(m: PeersRun): string {
  const o = m.options;
  const flags = [
    o.browser !== 'chromium' ? `--browser ${o.browser}` : '',
    o.quick ? '--quick' : '',
    o.passes !== (o.quick ? 1 : 3) ? `--passes ${o.passes}` : '',
    o.only ? `--only ${o.only}` : '',
  ].filter(Boolean);
  return `npm run bench:peers${flags.length ? ` -- ${flags.join(' ')}` : ''}`;
}

/** The run's section: the ratio tables first, then each configuration's times, cold starts, group photos and faces found. */
export function renderRun(m: PeersRun): string {
  const o = m.options;
  const chromium = m.browser === 'chromium';
  const first = m.configs[0];
  const browserVersion = first?.warm.browserVersion ?? m.browser;
  const upscaled = m.images.filter((i) => i.set === 'upscaled');
  const sources = [...new Set(upscaled.map((i) => i.notes?.split(' ')[0] ?? '?'))];
  const withDecode = m.configs.map((c) => configTimes(m, c, 'withDecode'));
  const withoutDecode = m.configs.map((c) => configTimes(m, c, 'withoutDecode'));
  const v = m.versions;
  const lines: string[] = [
    chromium ? '## Side by side: human, face-api and this engine' : `### ${browserVersion}`,
    '',
    `Measured ${m.measuredAt} by \`${command(m)}\` in ${(m.durationS / 60).toFixed(1)} min; regenerate rather than edit.` +
      (o.quick ? ' **Quick smoke run: a few photos, 1 pass; not a result.**' : '') +
      (o.only ? ` **Partial run: only photos whose path contains "${o.only}".**` : '') +
      (o.settleMs ? ` **Every measured call after ${o.settleMs} ms of idle (--settle).**` : '') +
      (m.partial ? ' **Cut short.**' : ''),
    '',
    `- Machine: ${m.machine}; ${chromium ? 'headless ' : ''}${browserVersion}. Both configurations in one run, one after the other, each on its own dev server: ` +
      CONFIGS.map((c) => `**${c.label}** (${c.isolation ? 'pages served with COOP/COEP: cross-origin isolated' : 'pages served without COOP/COEP, as most hosts serve them: no SharedArrayBuffer'}; every library asked for ${c.threads} WASM thread${c.threads > 1 ? 's' : ''})`).join(' and ') +
      '. Ratios are comparable within a configuration (the three libraries alternate call by call, so they share the machine\'s load); absolute times of different configurations were measured minutes apart.',
    '- Every call starts from the same encoded file (a Blob of its bytes) and is timed until the library\'s answer, decoding included: human `createImageBitmap(file)` then `human.detect(bitmap)`; ' +
      'face-api `createImageBitmap(file)`, drawn into a canvas (it takes no ImageBitmap), then its detect chain; this engine `engine.detect({ image: file, selector: \'LIVENESS\' })` (it decodes in its worker). ' +
      '*Without decode*: each call less its own decode — human\'s createImageBitmap, face-api\'s createImageBitmap and canvas draw, the engine\'s worker decode stage (its diagnostics). ' +
      'A browser may leave part of a decode to the first read of the bitmap\'s pixels (inside human\'s detect), so human\'s time without decode can still hold some of it.',
    `- human ${v['@vladmandic/human']}: tfjs wasm (@tensorflow/tfjs-backend-wasm ${v['@tensorflow/tfjs-backend-wasm']}), face detector (blazeface, maxDetected 100), mesh, iris, description, emotion, antispoof, liveness; ` +
      'result caching and its image filter off. face-api ' +
      `${v['@vladmandic/face-api']}: the same tfjs wasm files, \`detectAllFaces(canvas, new SsdMobilenetv1Options()).withFaceLandmarks().withFaceExpressions().withAgeAndGender().withFaceDescriptors()\`. ` +
      `this engine: ${o.engineBuild === 'lib' ? 'its npm package build (one ESM file and its worker, ORT\'s files and the models as static files)' : 'its source modules through vite\'s dev server'}, \`createEngine({ backend: 'wasm', numThreads })\`, onnxruntime-web ${v['onnxruntime-web']}. ` +
      'Each library in its own same-origin iframe (human and face-api each bundle tfjs, which keeps one engine per JS realm); the libraries\' files sent as on disk, not through vite\'s transforms.',
    `- Photos: the 640×480 single face (\`${SINGLE_FACE.source}\` cropped, as \`npm run bench\`), ${o.singleRepeats}× per pass, spread through it; ` +
      `${m.images.filter((i) => i.set !== 'upscaled').length} photos of ../shared/data faces/ and groups/${o.quick ? ' (--quick: one per band)' : ''}` +
      (upscaled.length
        ? `; and a **speed-only set of ${upscaled.length} upscaled photos** made in the page at bench time (nothing stored): ${sources.map((s) => `\`${s}\``).join(', ')} scaled to ${UPSCALE_MEGAPIXELS.join(' and ')} MP, JPEG quality ${UPSCALE_QUALITY} — there to time phone-size photos, which the shared data lacks; their faces are counted, not judged`
        : '') +
      '. Bands by pixel count; a photo on a limit belongs to the lower band.',
    `- Warm: ${o.warmup} untimed round(s) (≥ 3 s) over the single face and each band's largest photo, then ${o.passes} measured pass(es); in a pass each photo goes to the three libraries one after another (who goes first rotates). ` +
      'Times are medians per photo; band and group times are sums of the photos\' medians.' +
      (chromium && o.coldRuns
        ? ` Cold: a new browser context (empty HTTP and code caches) per run, navigation → first answer, the library starting as the page module runs while the photo is made; median of ${o.coldRuns} per library, first photo and configuration` +
          (o.revisit ? `; second visit: a fresh profile on disk, the small-photo page visited, left open ${REVISIT_AFTER_MS / 1000} s, closed and opened again.` : '.')
        : chromium
          ? ''
          : ' No cold starts outside Chromium (they need Playwright\'s fresh contexts).'),
    '',
    '**engine / human and engine / face-api, decode counted** (below 1: the engine is faster):',
    '',
    ...renderRatioTable(withDecode),
    '',
    '**Without decode** (each library\'s own decode taken out of its calls):',
    '',
    ...renderRatioTable(withoutDecode),
    '',
  ];
  for (const [k, c] of m.configs.entries()) lines.push(...renderConfig(m, c, withDecode[k]!, withoutDecode[k]!));
  if (first) lines.push(...renderFaces(m, first));
  return lines.join('\n').trimEnd();
}

function renderConfig(m: PeersRun, c: ConfigRun, times: ConfigTimes, bare: ConfigTimes): string[] {
  const config = configOf(c.config);
  const rt = c.warm.runtimes;
  const threadsOf = (p: Peer) => `${PEER_LABELS[p]} ${rt[p].backend}${rt[p].simd ? ' SIMD' : ''}, ${rt[p].threads} thread(s)`;
  const fewerThreads = PEERS.filter((p) => rt[p].threads < config.threads);
  const heading = m.browser === 'chromium' ? '###' : '####';
  const lines = [
    `${heading} ${config.label}`,
    '',
    `Page ${c.warm.setup.crossOriginIsolated ? 'cross-origin isolated' : '**not** cross-origin isolated'}, hardwareConcurrency ${c.warm.setup.hardwareConcurrency}; ${PEERS.map(threadsOf).join('; ')}. ` +
      (fewerThreads.length ? `**Asked for ${config.threads} threads, ${fewerThreads.map((p) => PEER_LABELS[p]).join(', ')} got fewer**${m.browser === 'webkit' ? ' (WebKit runs one WASM thread either way: WebKitGTK gives these pages no threads, so both configurations measure one thread)' : ''}. ` : '') +
      `Load average ${c.warm.loadBefore.toFixed(1)} before and ${c.warm.loadAfter.toFixed(1)} after the warm passes; other processes used ${pct(c.warm.othersWarm)} of the CPU during them` +
      (c.colds.length ? ` and at most ${pct(c.othersCold)} during a cold start` : '') +
      ' (more than a few % inflates the times).',
    '',
    `| work | ${PEERS.map((p) => PEER_LABELS[p]).join(' | ')} | engine / human | engine / face-api |`,
    '|---|--:|--:|--:|--:|--:|',
    `| one face 640×480, median of ${count(c.warm.calls.filter((k) => k.peer === 'engine' && k.id === SINGLE_ID).length, 'call')} | ${cells(times.warm.single, msOrS)} |`,
  ];
  if (times.warm.groups) lines.push(`| the ${times.warm.groups.images} photos of groups/, sum | ${cells(times.warm.groups.sums, msOrS)} |`);
  for (const b of times.warm.bands) {
    if (!b.images) continue;
    const upscaled = m.images.filter((i) => i.band === b.band && i.set === 'upscaled').length;
    lines.push(`| ${b.label}: ${count(b.images, 'photo')}${upscaled ? ` (${upscaled} upscaled)` : ''}, ${b.megapixels.toFixed(1)} MP, sum | ${cells(b.sums, msOrS)} |`);
  }
  lines.push(`| without decode: one face 640×480 | ${cells(bare.warm.single, msOrS)} |`);
  for (const b of bare.warm.bands) if (b.images) lines.push(`| without decode: ${b.label}, sum | ${cells(b.sums, msOrS)} |`);
  if (c.colds.length) {
    const cold = coldStats(c.colds);
    const large = m.images.find((i) => i.path === m.largePhoto);
    lines.push(
      `| cold start, small first photo (the 640×480 face) | ${cells(cold.small, (t) => `${ms(t)} ms`)} |`,
      `| cold start, large first photo (\`${m.largePhoto}\`${large ? `, ${large.width}×${large.height}` : ''}) | ${cells(cold.large, (t) => `${ms(t)} ms`)} |`,
      `| MB fetched until the first answer (code + wasm + models) | ${cells(cold.libraryBytes, mb)} |`,
    );
    if (PEERS.every((p) => Number.isFinite(cold.revisit[p]))) {
      lines.push(`| second visit, small first photo (HTTP and V8 code caches kept) | ${cells(cold.revisit, (t) => `${ms(t)} ms`)} |`);
    }
    lines.push(
      '',
      'Cold starts, the run with the median first answer (ms since navigation start; *started*: models loaded for human and face-api, `createEngine()` resolved for the engine, which loads its models inside the first request):',
      '',
      '| library | first photo | page module running | started | first answer | faces | requests | MB code | MB wasm | MB models |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const f of ['small', 'large'] as const) {
      for (const peer of PEERS) {
        const run = cold.medianRun(peer, f);
        if (!run) continue;
        const kinds = bytesByKind(run.responses);
        const r = run.result;
        const requests = run.responses.filter((q) => (LIBRARY_KINDS as readonly FetchKind[]).includes(fetchKind(q.url))).length;
        lines.push(
          `| ${PEER_LABELS[peer]} | ${f === 'small' ? '640×480 face' : m.largePhoto} | ${ms(r.moduleStart)} | ${ms(r.ready)} | **${ms(r.firstResult)}** | ${r.faces} | ${requests} | ${mb(kinds.code)} | ${mb(kinds.wasm)} | ${mb(kinds.models)} |`,
        );
      }
    }
    lines.push('', `All cold runs (first answer, ms): ${PEERS.map((p) => `${PEER_LABELS[p]} small ${cold.runsOf(p, 'small').map((k) => ms(k.result.firstResult)).join(', ')} / large ${cold.runsOf(p, 'large').map((k) => ms(k.result.firstResult)).join(', ')}`).join('; ')}.`);
  }
  lines.push('');
  return lines;
}

/** Per group photo (every configuration's engine / human) and faces found against the manifest (the first configuration's calls). */
function renderFaces(m: PeersRun, c: ConfigRun): string[] {
  const faces = samplesOf(c.warm.calls, (k) => k.faces);
  const heading = m.browser === 'chromium' ? '###' : '####';
  const groups = m.images.filter((i) => i.set === 'groups');
  const lines: string[] = [];
  if (groups.length) {
    const medians = m.configs.map((r) => samplesOf(r.warm.calls, (k) => k.ms));
    lines.push(
      `${heading} Group photos, per photo`,
      '',
      `Median ms per photo (${configOf(c.config).label}; faces found in brackets; the manifest's count is a helper's visual count, approximate on the crowded ones), and engine / human in each configuration.`,
      '',
      `| photo | size | faces (manifest) | ${PEERS.map((p) => `${PEER_LABELS[p]} ms (faces)`).join(' | ')} | ${m.configs.map((r) => `engine / human, ${configOf(r.config).label}`).join(' | ')} |`,
      `|---|--:|--:|${PEERS.map(() => '--:').join('|')}|${m.configs.map(() => '--:').join('|')}|`,
    );
    for (const g of groups) {
      const t = (k: number, p: Peer) => median(medians[k]![p][g.path] ?? []);
      lines.push(
        `| ${g.path.replace('groups/', '')} | ${g.width}×${g.height} | ${g.expectedFaces ?? '?'} | ${PEERS.map((p) => `${ms(t(0, p))} (${facesFound(faces, p, g.path).text})`).join(' | ')} | ${m.configs.map((_, k) => x(ratio(t(k, 'engine'), t(k, 'human')))).join(' | ')} |`,
      );
    }
    lines.push('');
  }
  const sets = [
    { label: 'groups/', images: groups, judged: true },
    { label: 'faces/ (one face each)', images: m.images.filter((i) => i.set === 'faces'), judged: true },
    { label: 'upscaled, speed only (counted, not judged)', images: m.images.filter((i) => i.set === 'upscaled'), judged: false },
  ].filter((s) => s.images.length);
  lines.push(
    `${heading} Faces found`,
    '',
    `${configOf(c.config).label}. Per set: faces found (sum over photos) against the manifest's face_count, with the photos whose count is exact, fewer or more. An extra box is not a win.`,
    '',
    `| set | manifest | ${PEERS.map((p) => PEER_LABELS[p]).join(' | ')} |`,
    '|---|--:|--:|--:|--:|',
  );
  for (const s of sets) {
    const expected = s.judged ? String(s.images.reduce((sum, i) => sum + (i.expectedFaces ?? 0), 0)) : '—';
    const summary = (peer: Peer) => {
      const counts = s.images.map((i) => ({ found: facesFound(faces, peer, i.path).value, expected: i.expectedFaces }));
      const found = counts.reduce((sum, k) => sum + k.found, 0);
      if (!s.judged) return String(found);
      const judged = counts.filter((k) => k.expected !== null);
      const exact = judged.filter((k) => k.found === k.expected).length;
      const fewer = judged.filter((k) => k.found < k.expected!).length;
      return `${found} (${exact} exact, ${fewer} fewer, ${judged.length - exact - fewer} more)`;
    };
    lines.push(`| ${s.label} (${s.images.length} photos) | ${expected} | ${PEERS.map(summary).join(' | ')} |`);
  }
  const differing = m.images.filter((i) => i.set !== 'upscaled' && PEERS.some((p) => facesFound(faces, p, i.path).value !== i.expectedFaces));
  if (differing.length && m.browser === 'chromium') {
    lines.push('', 'Photos where a library\'s count differs from the manifest:', '', `| photo | manifest | ${PEERS.map((p) => PEER_LABELS[p]).join(' | ')} | manifest note |`, '|---|--:|--:|--:|--:|---|');
    for (const i of differing) {
      const note = (i.notes ?? '').replace(/\|/g, '/');
      const cell = (p: Peer) => {
        const f = facesFound(faces, p, i.path);
        return f.value === i.expectedFaces ? f.text : `**${f.text}**`;
      };
      lines.push(`| ${i.path} | ${i.expectedFaces ?? '?'} | ${PEERS.map(cell).join(' | ')} | ${note.length > 70 ? `${note.slice(0, 70)}…` : note} |`);
    }
  }
  return lines;
}
