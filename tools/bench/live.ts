// `npm run bench:live`: engine.watch() against human's own video loop on the same input in
// the same run. A segment of a shared video is decoded in Chromium and written as a 640×480
// .y4m in a temporary folder (deleted afterwards; nothing is committed); a Chromium started
// with --use-fake-device-for-media-stream --use-file-for-fake-video-capture=<that file> then
// plays it as its webcam, looping, at 30 fps (a webcam's usual rate; the clip's frames are
// sampled at 1/30 s). Per library, alternating, after a warm-up:
// per-result latency p50/p95, results per second, faces per result, and dropped frames
// (camera frames shown during the run that got no result). Written to docs/benchmarks.md
// between the live-bench markers.
//   --seconds N (15)  --warm N (3)  --rounds N (2)  --analyses boxes|emotion (emotion)
//   --fps N (30)  --wait-idle S (0: before each round, wait up to S s for other processes to settle)
//   --console  --json  --no-write
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, withBrowserSession } from '../harness/browser-session.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import type { RunResult } from './pages/live.ts';
import { cpuModel, ms, pct, waitForIdle, writeBetweenMarkers } from './report.ts';
import { summarize } from './stats.ts';

const START = '<!-- live-bench:start -->';
const END = '<!-- live-bench:end -->';
const DOC = resolve(projectRoot, 'docs/benchmarks.md');
const PAGE = '/tools/bench/pages/live.html';
const GOAL = { resultsPerSecond: 25, p95Ms: 80 };

/** Segments of short_hamilton_clip.mp4 (media seconds): one face, and the audience (up to 4 faces in view). */
const SEGMENTS = [
  { id: '1 face', file: 'short_hamilton_clip.mp4', from: 3.6, to: 7.8, note: 'Lin-Manuel Miranda in a medium shot, moving' },
  { id: '3+ faces', file: 'short_hamilton_clip.mp4', from: 7.9, to: 10.0, note: 'the audience: 4 faces in view, 3 of them half-turned' },
] as const;

async function writeY4m(dir: string, seg: (typeof SEGMENTS)[number], fps: number): Promise<string> {
  const path = join(dir, `${seg.id.replace(/\W+/g, '-')}.y4m`);
  await withBrowserSession({}, async (session) => {
    await session.open(PAGE);
    await session.call('openClip', 'hamilton');
    const parts: Buffer[] = [Buffer.from(`YUV4MPEG2 W640 H480 F${fps}:1 Ip A1:1 C420jpeg\n`)];
    for (let k = 0; ; k++) {
      const t = seg.from + k / fps;
      if (t >= seg.to) break;
      parts.push(Buffer.from('FRAME\n'), Buffer.from(await session.call<string>('clipFrame', t), 'base64'));
    }
    writeFileSync(path, Buffer.concat(parts));
  });
  return path;
}

interface Row {
  segment: string;
  library: string;
  backend: string;
  seconds: number;
  results: number;
  perSecond: number;
  p50: number;
  p95: number;
  faces: number;
  dropped: number;
  cameraFrames: number;
  detectorShare?: number;
  workerP50?: number;
  /** mean ms per result in the worker: total, and its mesh (follow and new faces), emotion and detector stages */
  workerMean?: { total: number; mesh: number; emotion: number; detect: number };
}

const mean = (values: readonly number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
const stageMeans = (runs: readonly RunResult[]) => ({
  mesh: mean(runs.flatMap((r) => r.stageMs?.mesh ?? [])),
  emotion: mean(runs.flatMap((r) => r.stageMs?.emotion ?? [])),
  detect: mean(runs.flatMap((r) => r.stageMs?.detect ?? [])),
});

function combine(segment: string, runs: RunResult[]): Row {
  const seconds = runs.reduce((s, r) => s + r.seconds, 0);
  const results = runs.reduce((s, r) => s + r.results, 0);
  const cameraFrames = runs.reduce((s, r) => s + r.cameraFrames, 0);
  const lat = summarize(runs.flatMap((r) => r.latencies));
  const faces = runs.flatMap((r) => r.faces);
  const worker = runs.flatMap((r) => r.workerMs ?? []);
  return {
    segment,
    library: runs[0]!.library,
    backend: runs[0]!.backend,
    seconds,
    results,
    perSecond: results / seconds,
    p50: lat.p50,
    p95: lat.p95,
    faces: faces.reduce((s, f) => s + f, 0) / Math.max(1, faces.length),
    dropped: Math.max(0, cameraFrames - results),
    cameraFrames,
    detectorShare: runs[0]!.detectorRuns === undefined ? undefined : runs.reduce((s, r) => s + (r.detectorRuns ?? 0), 0) / Math.max(1, results),
    workerP50: worker.length ? summarize(worker).p50 : undefined,
    workerMean: worker.length ? { total: mean(worker), ...stageMeans(runs) } : undefined,
  };
}

const stagesCell = (w: Row['workerMean']) =>
  w ? `${ms(w.total)} (${ms(w.mesh)} · ${ms(w.emotion)} · ${ms(w.detect)} · ${ms(Math.max(0, w.total - w.mesh - w.emotion - w.detect))})` : '';

function render(rows: Row[], o: { chromium: string; others: number | undefined; analyses: string; rounds: number; seconds: number; fps: number }): string {
  const lines = [
    '## Live video (engine.watch) next to human',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:live\` (tools/bench/live.ts); regenerate rather than edit.`,
    '',
    `- Machine: ${cpus().length} cores, ${cpuModel()}; other processes used ${pct(o.others)} of the CPU during the timed rounds (mean)` +
      (o.others !== undefined && o.others > 0.05 ? ' (**timings inflated**)' : ''),
    `- Browser: headless Chromium ${o.chromium}; input: Chromium's fake camera playing a 640×480 ${o.fps} fps .y4m made at bench time ` +
      `from short_hamilton_clip.mp4 (640×360 letterboxed, its frames sampled every 1/${o.fps} s), looping: at most ${o.fps} results/s`,
    `- Work per frame, both libraries: face boxes + mesh landmarks + pose${o.analyses === 'emotion' ? ' + emotion' : ''}, up to 5 faces; ` +
      'engine: engine.watch(video) with its defaults (mesh-following; the detector\'s whole-frame runs spread over frames, one per frame, a sweep every 1 s or when a face is lost; ' +
      'at most one extra per frame: a new face, an emotion refresh (each face every 200 ms) or a detector run); ' +
      'human: its own loop, `human.detect(video)` on each new camera frame, its default caching (detector skipped on frames where the face moved little), iris/description/antispoof off',
    `- ${o.rounds} rounds of ${o.seconds} s per library, alternating, after a warm-up; latency = frame taken → result; ` +
      'dropped = camera frames shown during the run that got no result',
    '',
    `| input | library | backend | results/s (goal ≥ ${GOAL.resultsPerSecond}) | latency p50 ms | p95 ms (goal ≤ ${GOAL.p95Ms}) | faces per result | faces analysed/s | camera frames | dropped | engine: detector runs per result | engine: worker p50 ms | engine: worker mean ms (mesh · emotion · detector · rest) |`,
    '|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.segment} | ${r.library} | ${r.backend} | ${r.perSecond.toFixed(1)} | ${ms(r.p50)} | ${ms(r.p95)} | ${r.faces.toFixed(2)} | ${(r.perSecond * r.faces).toFixed(1)} | ${r.cameraFrames} | ${r.dropped} (${pct(r.dropped / Math.max(1, r.cameraFrames))}) | ` +
        `${r.detectorShare === undefined ? '' : r.detectorShare.toFixed(2)} | ${r.workerP50 === undefined ? '' : ms(r.workerP50)} | ${stagesCell(r.workerMean)} |`,
    );
  }
  lines.push('', 'Goals (issue #14): ≥ 25 results/s with 1–3 faces at 640×480 on 2 cores, p95 ≤ 80 ms, more results/s than human:', '');
  for (const seg of SEGMENTS) {
    const e = rows.find((r) => r.segment === seg.id && r.library === 'engine');
    const h = rows.find((r) => r.segment === seg.id && r.library === 'human');
    if (!e || !h) continue;
    const met = (ok: boolean) => (ok ? '**met**' : '**missed**');
    lines.push(
      `- ${seg.id} (${seg.note}): results/s ${e.perSecond.toFixed(1)} ${met(e.perSecond >= GOAL.resultsPerSecond)}; ` +
        `p95 ${ms(e.p95)} ms ${met(e.p95 <= GOAL.p95Ms)}; engine/human results/s ${(e.perSecond / h.perSecond).toFixed(2)} ${met(e.perSecond > h.perSecond)}` +
          (Math.abs(e.faces - h.faces) > 0.25
            ? ` — but the engine follows ${e.faces.toFixed(2)} faces per result and human finds ${h.faces.toFixed(2)}: faces analysed per second engine/human ${((e.perSecond * e.faces) / (h.perSecond * h.faces)).toFixed(2)}`
            : ''),
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '15' },
      warm: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '2' },
      analyses: { type: 'string', default: 'emotion' },
      console: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false },
      fps: { type: 'string', default: '30' },
      'wait-idle': { type: 'string', default: '0' },
    },
  });
  const fps = Number(values.fps);
  const waitIdle = Number(values['wait-idle']);
  const seconds = Number(values.seconds);
  const warmSeconds = Number(values.warm);
  const rounds = Number(values.rounds);
  const analyses = values.analyses === 'boxes' ? 'boxes' : 'emotion';
  const dir = mkdtempSync(join(tmpdir(), 'bench-live-'));
  const rows: Row[] = [];
  let chromium = '';
  // other processes' share, measured over the timed rounds only: the browsers that made the clips
  // leave orphaned processes whose CPU no longer counts as the bench's own (a quiet machine read 52%)
  const shares: number[] = [];
  try {
    for (const seg of SEGMENTS) {
      const clip = await writeY4m(dir, seg, fps);
      console.log(`${seg.id}: ${clip}`);
      await withBrowserSession(
        {
          console: values.console,
          callTimeoutMs: 600_000,
          extraArgs: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${clip}`],
        },
        async (session) => {
          chromium = session.browser.version();
          await session.open(PAGE);
          const runs: Record<'engine' | 'human', RunResult[]> = { engine: [], human: [] };
          for (let round = 0; round < rounds; round++) {
            // alternate which goes first so neither always runs on a warmer machine
            const order = round % 2 === 0 ? (['engine', 'human'] as const) : (['human', 'engine'] as const);
            for (const library of order) {
              await waitForIdle(waitIdle);
              const before = cpuSnapshot();
              const r = await session.call<RunResult>(library === 'engine' ? 'runEngine' : 'runHuman', { seconds, warmSeconds, analyses, fps });
              const share = othersShare(before, cpuSnapshot());
              if (share !== undefined) shares.push(share);
              console.log(`  ${library} round ${round + 1}: ${(r.results / r.seconds).toFixed(1)} results/s, ${r.cameraFrames} camera frames`);
              runs[library].push(r);
            }
          }
          rows.push(combine(seg.id, runs.engine), combine(seg.id, runs.human));
        },
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const others = shares.length ? shares.reduce((a, b) => a + b, 0) / shares.length : undefined;
  if (values.json) console.log(JSON.stringify(rows, null, 1));
  const doc = render(rows, { chromium, others, analyses, rounds, seconds, fps });
  console.log(doc);
  if (!values['no-write']) {
    writeBetweenMarkers(DOC, { start: START, end: END }, doc, { template: `# Benchmarks\n\n${START}\n${END}\n`, appendMarkers: true });
    console.log(`\nwritten to ${DOC}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
