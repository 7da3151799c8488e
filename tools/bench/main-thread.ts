// `npm run bench:main-thread`: the page's main thread while a 100k-template gallery is reopened
// by the first /recognize after a page load, and during a later /recognize, measured with
// PerformanceObserver('longtask') in headless Chromium (real engine, real models; synthetic
// embeddings for the crowd plus one enrolled real face). Prints a table; `--label before|after`
// names the column, `--write` puts it into docs/benchmarks.md between the main-thread markers.
//   --templates 100000  --reloads 3  --label after  --write  --console
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, withBrowserSession } from '../harness/browser-session.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import type { MainThreadOptions, Phase } from './pages/main-thread.ts';

const PAGE = '/tools/bench/pages/main-thread.html';
const DOC = resolve(projectRoot, 'docs/benchmarks.md');
const START = '<!-- main-thread-bench:start -->';
const END = '<!-- main-thread-bench:end -->';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const f0 = (v: number) => v.toFixed(0);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      templates: { type: 'string', default: '100000' },
      reloads: { type: 'string', default: '3' },
      label: { type: 'string', default: 'now' },
      write: { type: 'boolean', default: false },
      console: { type: 'boolean', default: false },
    },
  });
  const options: MainThreadOptions = { name: 'bench-main-thread', templates: Number(values.templates), perSubject: 5 };
  const reloads = Number(values.reloads);
  const run = await withBrowserSession({ console: values.console, callTimeoutMs: 1_800_000 }, async (session) => {
    await session.open(PAGE);
    const before = cpuSnapshot();
    console.log(`seeding ${options.templates} templates`);
    await session.call('seed', options);
    const runs: Phase[][] = [];
    try {
      for (let i = 0; i < reloads; i++) {
        await session.open(PAGE); // a page load: fresh realm, the gallery only in IndexedDB
        runs.push(await session.call<Phase[]>('measure', options));
        console.log(runs.at(-1)!.map((p) => `${p.name}: ${f0(p.ms)} ms, longest task ${f0(p.longestMs)} ms`).join('; '));
      }
    } finally {
      await session.call('cleanup', options.name).catch(() => {});
    }
    return { runs, chromium: session.browser.version(), others: othersShare(before, cpuSnapshot()) };
  });
  const names = run.runs[0]!.map((p) => p.name);
  const lines = [
    `${values.label} (${new Date().toISOString().slice(0, 10)}, Chromium ${run.chromium}, ${reloads} page loads, medians; other processes used ${run.others === undefined ? 'n/a' : `${(run.others * 100).toFixed(0)}%`} of the CPU):`,
    '',
    '| phase | wall ms | long tasks (> 50 ms) | longest task ms | blocking ms (Σ over 50) |',
    '|---|--:|--:|--:|--:|',
    ...names.map((name, i) => {
      const of = (k: keyof Phase) => median(run.runs.map((r) => r[i]![k] as number));
      return `| ${name} | ${f0(of('ms'))} | ${f0(of('longTasks'))} | ${f0(of('longestMs'))} | ${f0(of('blockingMs'))} |`;
    }),
  ];
  const table = lines.join('\n');
  console.log(table);
  if (values.write) {
    const doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Benchmarks\n';
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    if (start < 0 || end < 0) throw new Error(`docs/benchmarks.md has no ${START} … ${END} markers`);
    writeFileSync(DOC, `${doc.slice(0, end)}${table}\n\n${doc.slice(end)}`);
    console.log(`appended to ${DOC}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
