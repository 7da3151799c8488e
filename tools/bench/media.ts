// `npm run bench:media`: POST /v2/media on the test videos in headless Chromium; reports
// seconds of processing per second of video (target: ≤ 1, i.e. at least real time) and where
// the time goes, into docs/benchmarks.md between the media-bench markers.
//   --fps N (5)  --min-head-scale X (service default)  --runs N (2)  --threads N
//   --wait-idle S (0)  --console  --json  --no-write
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, withBrowserSession } from '../harness/browser-session.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import type { ClipResult, MediaBenchOptions, MediaBenchResult } from './pages/media.ts';
import { cpuModel, ms, pct, waitForIdle, writeBetweenMarkers } from './report.ts';
import { median } from './stats.ts';

const START = '<!-- media-bench:start -->';
const END = '<!-- media-bench:end -->';
const DOC = resolve(projectRoot, 'docs/benchmarks.md');
const DOC_TEMPLATE = `# Benchmarks\n\n${START}\n${END}\n`;
/** seconds of processing per second of video */
const TARGET = 1;

function clipRows(c: ClipResult): { wall: number; ratio: number; perFrame: number } {
  const wall = median(c.runs.map((r) => r.wallMs));
  return { wall, ratio: wall / 1000 / c.length, perFrame: wall / c.frames };
}

function render(r: MediaBenchResult, chromium: string, others: number | undefined): string {
  const lines = [
    '## Media (POST /v2/media on video)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:media\` (tools/bench/media.ts); regenerate rather than edit.`,
    '',
    `- Machine: ${cpus().length} cores, ${cpuModel()} (page sees hardwareConcurrency ${r.hardwareConcurrency}); ` +
      `other processes used ${pct(others)} of the CPU during the run`,
    `- Browser: headless Chromium ${chromium}; ORT-web ${r.backend.backend}, ${r.backend.threads} thread(s)`,
    `- Service settings: ${r.sampleFps} sampled frames per second, minHeadScale ${r.minHeadScale} (media default), ` +
      'emotions + tracking embedding every frame, demographics on the first 3 sightings of a person and then every 2 s, no landmarks',
    `- Time = POST /v2/media → complete media object, whole service (IndexedDB writes, <video> seeks, frame grabs, worker), ` +
      `after a warm-up job; median of ${r.clips[0]?.runs.length ?? 0} runs. The first job of a page also loads the models: ` +
      `a photo took ${ms(r.coldFirstJobMs)} ms cold`,
    '',
    `| clip | size | length s | sampled frames | faces | people | processing s | s per s of video (target ≤ ${TARGET}) | ms per frame | |`,
    '|---|---|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const c of r.clips) {
    const { wall, ratio, perFrame } = clipRows(c);
    lines.push(
      `| ${c.file} | ${c.width}×${c.height} ${c.mimeType} | ${c.length.toFixed(2)} | ${c.frames} | ${c.faces} | ${c.people} | ` +
        `${(wall / 1000).toFixed(2)} | ${ratio.toFixed(2)} | ${ms(perFrame)} | ${ratio <= TARGET ? '**MET**' : '**MISSED**'} |`,
    );
  }
  lines.push(
    '',
    'Where the time goes (last run, ms per sampled frame; worker stages as the worker measures them, ' +
      '"other" = page-side seeking, frame grabs, transfer, queueing, storage):',
    '',
    '| clip | analyses | detect | mesh | demographics | emotion | embedding | worker total | page round trip | other |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const c of r.clips) {
    const run = c.runs[c.runs.length - 1]!;
    const s = run.stages;
    const per = (v: number) => ms(v / c.frames);
    lines.push(
      `| ${c.file} | ${s.calls} | ${per(s.detect)} | ${per(s.mesh)} | ${per(s.demographics)} | ${per(s.emotion)} | ${per(s.embed)} | ` +
        `${per(s.worker)} | ${per(s.roundTrip)} | ${per(run.wallMs - s.roundTrip)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      fps: { type: 'string' },
      'min-head-scale': { type: 'string' },
      runs: { type: 'string', default: '2' },
      threads: { type: 'string' },
      'wait-idle': { type: 'string', default: '0' },
      console: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const options: MediaBenchOptions = {
    sampleFps: values.fps === undefined ? undefined : Number(values.fps),
    minHeadScale: values['min-head-scale'] === undefined ? undefined : Number(values['min-head-scale']),
    runs: Number(values.runs),
    threads: values.threads === undefined ? undefined : Number(values.threads),
  };
  await waitForIdle(Number(values['wait-idle']));
  const { result, chromium, others } = await withBrowserSession({ console: values.console, callTimeoutMs: 900_000 }, async (session) => {
    await session.open('/tools/bench/pages/media.html');
    const before = cpuSnapshot();
    const result = await session.call<MediaBenchResult>('benchMedia', options);
    return { result, chromium: session.browser.version(), others: othersShare(before, cpuSnapshot()) };
  });
  if (others !== undefined && others > 0.05) console.warn(`warning: other processes used ${pct(others)} of the CPU during the run; timings are inflated`);
  if (values.json) console.log(JSON.stringify(result, null, 1));
  const doc = render(result, chromium, others);
  console.log(doc);
  if (!values['no-write']) {
    writeBetweenMarkers(DOC, { start: START, end: END }, doc, { template: DOC_TEMPLATE, appendMarkers: true });
    console.log(`\nwritten to ${DOC}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
