// `npm run bench:cold-ab -- --a DIR --b DIR`: two package builds of the engine (folders under
// dist/, each from `npm run build:lib`), their cold starts alternated A, B, A, B… in fresh
// browser contexts, as bench:peers measures one (navigation → first /detect answer, selector
// LIVENESS), with human's in between as the yardstick, in the configurations bench:peers has
// (a page with COOP/COEP and 2 threads, one without and 1 thread). For judging a cold-start
// change on a noisy machine: both sides see the same load. Prints medians and ratios; writes nothing.
//   --runs N (6)  per side, first photo and configuration   --photo single|large|both (both)
//   --config both|isolated|plain (isolated)   --no-human   --log  (each engine run's first-answer breakdown)
//   --console  the pages' and their workers' console output
//   --wait-idle S (0)  before each cold start, wait up to S s for other processes to settle
//   --browser-arg ARG  (repeatable) an extra Chromium flag for every side, e.g.
//                      --browser-arg=--js-flags=--wasm-tiering-budget=40000000 (a V8 setting's bound)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { chromiumArgs, chromiumPath } from '../browser-env.ts';
import { projectRoot, serveDev } from '../harness/browser-session.ts';
import { callOnNewPage } from '../harness/page-call.ts';
import type { PeerCold } from './pages/peer-frame.ts';
import { firstAnswerNote } from './peers-cold.ts';
import { CONFIGS } from './peers-data.ts';
import { ManifestSchema, benchImages } from './peers-manifest.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import { ms, pct, waitForIdle } from './report.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: 'lib' },
    runs: { type: 'string', default: '6' },
    photo: { type: 'string', default: 'both' },
    config: { type: 'string', default: 'isolated' },
    'no-human': { type: 'boolean', default: false },
    log: { type: 'boolean', default: false },
    console: { type: 'boolean', default: false },
    'wait-idle': { type: 'string', default: '0' },
    'browser-arg': { type: 'string', multiple: true, default: [] },
  },
});
if (!values.a) throw new Error('--a DIR (a folder under dist/ with a package build) is required');
const configs = CONFIGS.filter((c) => values.config === 'both' || c.id === values.config);
if (!configs.length) throw new Error('--config must be both, isolated or plain');
const FRAME = '/tools/bench/pages/peer-frame.html';
const manifest = ManifestSchema.parse(JSON.parse(readFileSync(resolve(projectRoot, '../shared/data/manifest.json'), 'utf8')));
const largest = benchImages(manifest).reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
const photos = values.photo === 'both' ? ['single', largest.path] : [values.photo === 'large' ? largest.path : 'single'];
const HUMAN = 'human';
const A = `A (${values.a})`;
const B = `B (${values.b})`;
const sides: { name: string; query: Record<string, string> }[] = [
  ...(values['no-human'] ? [] : [{ name: HUMAN, query: { peer: 'human' } }]),
  { name: A, query: { peer: 'engine', lib: values.a } },
  { name: B, query: { peer: 'engine', lib: values.b } },
];
const LIBRARY_FILES = ['/dist/', '/node_modules/@vladmandic/human/dist/', '/node_modules/@tensorflow/tfjs-backend-wasm/dist/'];

const times = new Map<string, number[]>();
const key = (config: string, photo: string, side: string) => `${config} | ${photo} | ${side}`;
// one server per configuration (with or without COOP/COEP, as bench:peers serves them), one browser for all
const servers = await Promise.all(configs.map((c) => serveDev({ optimizeEntries: [FRAME], staticPaths: LIBRARY_FILES, isolation: c.isolation })));
const browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs, ...values['browser-arg']], headless: true });
try {
  for (let r = 0; r < Number(values.runs); r++) {
    for (const [c, config] of configs.entries()) {
      for (const photo of photos) {
        // who goes first alternates, so a slow stretch of the machine does not land on one side
        const order = r % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) {
          await waitForIdle(Number(values['wait-idle']));
          const context = await browser.newContext();
          const snapshot = cpuSnapshot();
          try {
            const query = new URLSearchParams({ ...side.query, threads: String(config.threads), mode: 'cold', photo, engine: 'lib' });
            const cold = await callOnNewPage<PeerCold>(context, servers[c]!.baseUrl, `${FRAME}?${query}`, 'coldStart', {
              timeoutMs: 180_000,
              onPage: values.console ? (page) => page.on('console', (msg) => console.log(`  [${msg.worker() ? 'worker' : 'page'}] ${msg.text()}`)) : undefined,
            });
            if (cold.crossOriginIsolated !== config.isolation) throw new Error(`${side.name}'s page is${config.isolation ? ' not' : ''} cross-origin isolated`);
            const k = key(config.id, photo, side.name);
            times.set(k, [...(times.get(k) ?? []), cold.firstResult]);
            const others = othersShare(snapshot, cpuSnapshot());
            const load = others === undefined ? '' : `, others ${pct(others)} of the CPU`;
            console.log(`run ${r + 1}: ${k}: ${ms(cold.firstResult)} ms${values.log ? firstAnswerNote(cold) : ` (started ${ms(cold.ready)}${load})`}`);
          } finally {
            await context.close().catch(() => {});
          }
        }
      }
    }
  }
} finally {
  await browser.close().catch(() => {});
  await Promise.all(servers.map((s) => s.close().catch(() => {})));
}
console.log('\nmedians (ms, navigation → first answer):');
for (const [k, t] of times) console.log(`  ${k.padEnd(70)} ${ms(median(t))}  (${t.map(ms).join(', ')})`);
console.log('\nratios of medians:');
for (const config of configs) {
  for (const photo of photos) {
    const m = (side: string) => median(times.get(key(config.id, photo, side)) ?? []);
    const human = values['no-human'] ? '' : `A/human ${(m(A) / m(HUMAN)).toFixed(3)}, B/human ${(m(B) / m(HUMAN)).toFixed(3)}, `;
    // each run's A and B ran back to back: the median of their ratios drifts less with the load than the ratio of medians
    const a = times.get(key(config.id, photo, A)) ?? [];
    const paired = median((times.get(key(config.id, photo, B)) ?? []).map((b, i) => b / a[i]!));
    console.log(`  ${config.label} | ${photo}: ${human}B/A ${(m(B) / m(A)).toFixed(3)} (median of each run's B/A ${paired.toFixed(3)})`);
  }
}
