// `npm run bench:isolation`: what COOP/COEP buy. The built package (npm run build:lib) in a
// page served by a plain static server with and without the headers, side by side in the same
// run (alternating, several rounds): engine start, warm-up, and warm /detect and /recognize
// times. Without cross-origin isolation ORT runs its WASM on one thread. Writes the table into
// docs/install.md.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumArgs, chromiumPath } from '../browser-env.ts';
import { serveStatic } from '../harness/static-server.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import { cpuModel, ms, pct, waitForIdle, writeBetweenMarkers } from './report.ts';
import { median } from './stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const ROUNDS = 3;
const RUNS = 8;

interface PageResult {
  isolated: boolean;
  backend: { threads: number; backend: string };
  createMs: number;
  warmUpMs: number;
  detect: number[];
  recognize: number[];
}

execFileSync('npm', ['run', 'build:lib'], { cwd: ROOT, stdio: 'inherit' });
const site = mkdtempSync(join(tmpdir(), 'bench-isolation-'));
symlinkSync(resolve(ROOT, 'dist/lib'), join(site, 'lib'));
copyFileSync(resolve(ROOT, 'tools/bench/pages/isolation.html'), join(site, 'index.html'));
copyFileSync(resolve(ROOT, '../shared/data/faces/obama/obama.jpg'), join(site, 'face.jpg'));

const servers = { isolated: await serveStatic(site, { isolated: true }), plain: await serveStatic(site, { isolated: false }) };
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
const results: Record<'isolated' | 'plain', PageResult[]> = { isolated: [], plain: [] };
/** share of the CPU other processes took during each page's run */
const busy: Record<'isolated' | 'plain', number[]> = { isolated: [], plain: [] };
try {
  await waitForIdle(60);
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of ['isolated', 'plain'] as const) {
      const before = cpuSnapshot();
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${servers[kind].baseUrl}/index.html?runs=${RUNS}`);
      await page.waitForFunction(() => 'bench' in window, undefined, { timeout: 300_000 });
      const r = (await page.evaluate(() => (window as unknown as { bench: PageResult }).bench)) as PageResult;
      results[kind].push(r);
      busy[kind].push(othersShare(before, cpuSnapshot()) ?? NaN);
      console.log(`${kind}: isolated=${r.isolated} threads=${r.backend.threads} detect p50 ${ms(median(r.detect))} ms, recognize p50 ${ms(median(r.recognize))} ms`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  await servers.isolated.close();
  await servers.plain.close();
  rmSync(site, { recursive: true, force: true });
}

const all = (kind: 'isolated' | 'plain', pick: (r: PageResult) => number | number[]) => results[kind].flatMap(pick);
const row = (label: string, pick: (r: PageResult) => number | number[]) => {
  const a = median(all('isolated', pick));
  const b = median(all('plain', pick));
  return `| ${label} | ${ms(a)} | ${ms(b)} | ${(b / a).toFixed(2)}× |`;
};
const table = [
  `Measured by \`npm run bench:isolation\` on ${new Date().toISOString().slice(0, 10)}: ${cpuModel()}, the built package in headless Chromium, ` +
    `${ROUNDS} alternating rounds × ${RUNS} calls on one 910×1137 photo with one face (medians, ms); ` +
    `other processes took ${pct(median(busy.isolated))} / ${pct(median(busy.plain))} of the CPU during the runs with / without ` +
    `the headers (medians): threads only help when a core is free, so on a loaded machine the ratio shrinks or inverts.`,
  '',
  `| | with COOP/COEP (${results.isolated[0]!.backend.threads} WASM threads) | without (${results.plain[0]!.backend.threads} thread) | slowdown |`,
  '|---|---|---|---|',
  row('createEngine()', (r) => r.createMs),
  row('warmUp()', (r) => r.warmUpMs),
  row('detect (warm)', (r) => r.detect),
  row('recognize (warm)', (r) => r.recognize),
].join('\n');
console.log(table);
writeBetweenMarkers(
  resolve(ROOT, 'docs/install.md'),
  { start: '<!-- bench:isolation -->', end: '<!-- /bench:isolation -->' },
  table,
  { template: '', appendMarkers: true },
);
