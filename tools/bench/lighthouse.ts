// `npm run bench:lighthouse`: Lighthouse (mobile profile, its default: simulated slow 4G and a
// 4× slower CPU) against the production build of the demo, as `npm run demo` serves it (vite
// preview, COOP/COEP). Runs it RUNS times in Debian's Chromium, prints every run's scores and
// writes the median run's into docs/demo.md. `-- --runs N`, `-- --json DIR` (keeps each report).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromiumArgs, chromiumPath } from '../browser-env.ts';
import { serveBuiltSite } from '../harness/built-site.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import { pct, waitForIdle, writeBetweenMarkers } from './report.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg('runs') ?? 3);
const JSON_DIR = arg('json');
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const METRICS = {
  'first-contentful-paint': 'FCP',
  'largest-contentful-paint': 'LCP',
  'total-blocking-time': 'TBT',
  'cumulative-layout-shift': 'CLS',
  'speed-index': 'Speed Index',
} as const;

interface Run {
  scores: Record<(typeof CATEGORIES)[number], number>;
  metrics: Record<keyof typeof METRICS, number>;
  /** audits of the four categories that did not pass (score < 0.9), with their title */
  failing: string[];
  /** share of the CPU other processes took during the run */
  busy: number | undefined;
}

// --enable-unsafe-webgpu (browser-env) is left out: the page then gets WASM as a phone would
const flags = chromiumArgs.filter((f) => f !== '--enable-unsafe-webgpu');
const outDir = resolve(ROOT, `test-results/lighthouse-${process.pid}`);
const site = await serveBuiltSite(ROOT, join(outDir, 'site'));
const runs: Run[] = [];
try {
  for (let i = 0; i < RUNS; i++) {
    // total blocking time follows the machine's load (Lighthouse scales the observed tasks)
    await waitForIdle(60);
    const before = cpuSnapshot();
    // a fresh profile per run: a first visit (no service worker, no HTTP cache)
    const userDataDir = join(outDir, `profile-${i}`);
    mkdirSync(userDataDir, { recursive: true });
    const chrome = await chromeLauncher.launch({ chromePath: chromiumPath, chromeFlags: flags, userDataDir });
    try {
      const result = await lighthouse(`${site.baseUrl}/`, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] });
      if (!result) throw new Error('lighthouse returned no result');
      const { lhr } = result;
      if (lhr.runtimeError) throw new Error(`lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
      if (JSON_DIR) {
        mkdirSync(JSON_DIR, { recursive: true });
        writeFileSync(join(JSON_DIR, `lighthouse-${i}.json`), result.report as string);
      }
      const run: Run = {
        scores: Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c]?.score ?? NaN])) as Run['scores'],
        metrics: Object.fromEntries(Object.keys(METRICS).map((m) => [m, lhr.audits[m]?.numericValue ?? NaN])) as Run['metrics'],
        failing: CATEGORIES.flatMap((c) => lhr.categories[c]?.auditRefs ?? [])
          .filter((ref) => ref.weight > 0)
          .map((ref) => lhr.audits[ref.id]!)
          .filter((a) => a.score !== null && a.score < 0.9)
          .map((a) => `${a.id} (${a.displayValue ?? a.score})`),
        busy: othersShare(before, cpuSnapshot()),
      };
      runs.push(run);
      console.log(`run ${i + 1}: ${describeRun(run)}\n  not passing: ${run.failing.join(', ') || 'none'}`);
    } finally {
      chrome.kill();
    }
  }
} finally {
  await site.close();
  rmSync(outDir, { recursive: true, force: true });
}

function describeRun(r: Run): string {
  const scores = CATEGORIES.map((c) => `${c} ${r.scores[c].toFixed(2)}`).join(', ');
  const m = r.metrics;
  return `${scores}; FCP ${(m['first-contentful-paint'] / 1000).toFixed(1)} s, LCP ${(m['largest-contentful-paint'] / 1000).toFixed(1)} s, TBT ${Math.round(m['total-blocking-time'])} ms, CLS ${m['cumulative-layout-shift'].toFixed(3)}, SI ${(m['speed-index'] / 1000).toFixed(1)} s; others' CPU ${pct(r.busy)}`;
}

// the run whose performance score is the median (its metrics belong together)
const byPerf = [...runs].sort((a, b) => a.scores.performance - b.scores.performance);
const mid = byPerf[Math.floor((byPerf.length - 1) / 2)]!;
const date = new Date().toISOString().slice(0, 10);
const table = [
  `Measured by \`npm run bench:lighthouse\` on ${date}: Lighthouse 13 (mobile profile: simulated slow 4G, 4× CPU slowdown) against the production build served by vite preview, headless Debian Chromium, a fresh profile per run; the median of ${runs.length} runs by performance score (performance scores of the runs: ${runs.map((r) => r.scores.performance.toFixed(2)).join(', ')}; other processes took ${runs.map((r) => pct(r.busy)).join(', ')} of the CPU).`,
  '',
  '| performance | accessibility | best practices | SEO | FCP | LCP | TBT | CLS | Speed Index |',
  '|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  `| ${CATEGORIES.map((c) => mid.scores[c].toFixed(2)).join(' | ')} | ${(mid.metrics['first-contentful-paint'] / 1000).toFixed(1)} s | ${(mid.metrics['largest-contentful-paint'] / 1000).toFixed(1)} s | ${Math.round(mid.metrics['total-blocking-time'])} ms | ${mid.metrics['cumulative-layout-shift'].toFixed(3)} | ${(mid.metrics['speed-index'] / 1000).toFixed(1)} s |`,
  '',
  `Audits below 0.9 in that run: ${mid.failing.join(', ') || 'none'}.`,
].join('\n');
console.log(`\nmedian run: ${describeRun(mid)}`);
if (!process.argv.includes('--no-write')) {
  writeBetweenMarkers(resolve(ROOT, 'docs/demo.md'), { start: '<!-- bench:lighthouse -->', end: '<!-- /bench:lighthouse -->' }, table, {
    template: '',
    appendMarkers: true,
  });
  console.log('written to docs/demo.md');
}
