// `npm run bench:models`: per-model inference timings in headless Chromium (WASM backend),
// written into docs/models.md between the model-timings markers.
//   --runs N (20)  --warmup N (3)  --models id,id  --threads N (engine default)
//   --wait-idle S (wait up to S seconds for other work to stop; default 0)
//   --console (page logs)  --json (raw result incl. samples)  --no-write (stdout only)
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, withBrowserSession } from '../harness/browser-session.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import { cpuModel, ms, pct, waitForIdle, writeBetweenMarkers } from './report.ts';
import type { ModelBenchOptions, ModelBenchResult } from './pages/models.ts';

const START = '<!-- model-timings:start -->';
const END = '<!-- model-timings:end -->';
const DOC = resolve(projectRoot, 'docs/models.md');

function renderTable(result: ModelBenchResult, chromiumVersion: string, others: number | undefined): string {
  const { backend } = result;
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:models\` (tools/bench/models.ts); regenerate rather than edit.`,
    '',
    `- Machine: ${cpus().length} cores, ${cpuModel()} (page sees hardwareConcurrency ${result.hardwareConcurrency}); ` +
      `other processes used ${pct(others)} of the CPU during the run (more than a few % skews the numbers)`,
    `- Browser: headless Chromium ${chromiumVersion}, cross-origin isolated ${backend.crossOriginIsolated}`,
    `- Backend: ORT-web ${backend.backend}, ${backend.threads} thread(s); batch 1, input = the obama.jpg face crop`,
    `- Order: every model is loaded and run once (load, first run), then each gets ≥${result.warmup} and ≥0.5 s of warm-up runs ` +
      `and ${result.runs} timed runs (warm); times are \`runModel()\` as the page sees it (worker round trip included)`,
    `- Load = fetch + session creation; a worker's first session also pays ORT's WASM init, measured apart: ${ms(result.ortInitMs)} ms`,
    '',
    '| model | input | file MB | weights | load ms | first run ms | warm p50 ms | warm p95 ms | warm min ms |',
    '|---|---|--:|---|--:|--:|--:|--:|--:|',
  ];
  for (const m of result.models) {
    lines.push(
      `| ${m.id} | ${m.inputDims.slice(1).join('×')} | ${(m.bytes / 1e6).toFixed(2)} | ${m.weightStorage} | ` +
        `${ms(m.loadMs)} | ${ms(m.firstRunMs)} | ${ms(m.warm.p50)} | ${ms(m.warm.p95)} | ${ms(m.warm.min)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '3' },
      models: { type: 'string' },
      threads: { type: 'string' },
      'wait-idle': { type: 'string', default: '0' },
      console: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const options: ModelBenchOptions = {
    runs: Number(values.runs),
    warmup: Number(values.warmup),
    models: values.models?.split(',').map((s) => s.trim()),
    threads: values.threads === undefined ? undefined : Number(values.threads),
  };
  if (!(options.runs! >= 1) || !(options.warmup! >= 0)) throw new Error('--runs must be >= 1 and --warmup >= 0');

  // the machine may be shared (CI, other test runs): optionally wait until it is quiet
  await waitForIdle(Number(values['wait-idle']));
  const { result, chromiumVersion, others } = await withBrowserSession({ console: values.console, callTimeoutMs: 900_000 }, async (session) => {
    await session.open('/tools/bench/pages/models.html');
    const before = cpuSnapshot(); // with Chromium up, so its processes count as ours
    const result = await session.call<ModelBenchResult>('benchModels', options);
    return { result, chromiumVersion: session.browser.version(), others: othersShare(before, cpuSnapshot()) };
  });
  if (others !== undefined && others > 0.05) console.warn(`warning: other processes used ${pct(others)} of the CPU during the run; timings are inflated`);
  if (values.json) console.log(JSON.stringify(result, null, 1));
  const table = renderTable(result, chromiumVersion, others);
  console.log(table);
  if (!values['no-write']) {
    writeBetweenMarkers(DOC, { start: START, end: END }, table, { template: `# Models\n\n${START}\n${END}\n` });
    console.log(`\nwritten to ${DOC}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
