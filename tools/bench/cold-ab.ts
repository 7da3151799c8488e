// `npm run bench:cold-ab -- --a DIR --b DIR`: two package builds of the engine (folders under
// dist/, each from `npm run build:lib`), their cold starts alternated A, B, A, B… in fresh
// browser contexts, as bench:peers measures one (navigation → first /detect answer, selector
// LIVENESS, 2 threads), with human's in between as the yardstick. For judging a cold-start
// change on a noisy machine: both sides see the same load. Prints medians; writes nothing.
//   --runs N (6)  per side and first photo   --photo single|large|both (both)   --no-human
//   --browser-arg ARG  (repeatable) an extra Chromium flag for every side, e.g.
//                      --browser-arg=--js-flags=--wasm-tiering-budget=40000000 (a V8 setting's bound)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, withBrowserSession } from '../harness/browser-session.ts';
import { callOnNewPage } from '../harness/page-call.ts';
import type { PeerCold } from './pages/peer-frame.ts';
import { ManifestSchema, benchImages } from './peers-manifest.ts';
import { ms } from './report.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: 'lib' },
    runs: { type: 'string', default: '6' },
    photo: { type: 'string', default: 'both' },
    'no-human': { type: 'boolean', default: false },
    'browser-arg': { type: 'string', multiple: true, default: [] },
  },
});
if (!values.a) throw new Error('--a DIR (a folder under dist/ with a package build) is required');
const FRAME = '/tools/bench/pages/peer-frame.html';
const manifest = ManifestSchema.parse(JSON.parse(readFileSync(resolve(projectRoot, '../shared/data/manifest.json'), 'utf8')));
const largest = benchImages(manifest).reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
const photos = values.photo === 'both' ? ['single', largest.path] : [values.photo === 'large' ? largest.path : 'single'];
const sides: { name: string; query: Record<string, string> }[] = [
  ...(values['no-human'] ? [] : [{ name: 'human', query: { peer: 'human' } }]),
  { name: `A (${values.a})`, query: { peer: 'engine', lib: values.a } },
  { name: `B (${values.b})`, query: { peer: 'engine', lib: values.b } },
];
const LIBRARY_FILES = ['/dist/', '/node_modules/@vladmandic/human/dist/', '/node_modules/@tensorflow/tfjs-backend-wasm/dist/'];

await withBrowserSession({ extraArgs: values['browser-arg'], callTimeoutMs: 600_000, timeoutMs: 120_000, optimizeEntries: [FRAME], staticPaths: LIBRARY_FILES }, async (session) => {
  const times = new Map<string, number[]>();
  for (let r = 0; r < Number(values.runs); r++) {
    for (const photo of photos) {
      // who goes first alternates, so a slow stretch of the machine does not land on one side
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const context = await session.browser.newContext();
        try {
          const query = new URLSearchParams({ ...side.query, threads: '2', mode: 'cold', photo, engine: 'lib' });
          const cold = await callOnNewPage<PeerCold>(context, session.baseUrl, `${FRAME}?${query}`, 'coldStart', { timeoutMs: 180_000 });
          const key = `${side.name} | ${photo}`;
          times.set(key, [...(times.get(key) ?? []), cold.firstResult]);
          console.log(`run ${r + 1}: ${key}: ${ms(cold.firstResult)} ms (started ${ms(cold.ready)})`);
        } finally {
          await context.close().catch(() => {});
        }
      }
    }
  }
  console.log('\nmedians (ms, navigation → first answer):');
  for (const [key, t] of times) console.log(`  ${key.padEnd(60)} ${ms(median(t))}  (${t.map(ms).join(', ')})`);
});
