// `npm run bench:stages`: where the engine's warm /detect time goes, per size band of the
// bench:peers photo set (../shared/data faces/ and groups/, and the speed-only upscaled photos
// made in the page: bands ≤ 1, 1–3, 3–8, > 8 MP): the worker's stage times (decode, detect,
// mesh, demographics, liveness) summed over each band, medians of N passes.
// For A/B work on one stage; the side-by-side numbers are bench:peers'.
//   --passes N (3)  --only TEXT (photos whose path or upscaled id contains TEXT)
//   --single: the 640×480 single face bench:peers times, alone (made in the page)
//   --console: the page's and its workers' logs (for a temporary trace of the worker's runs)
//   --threads 1|2 (2): ORT's WASM threads (the page is cross-origin isolated either way)
//   --upscale N (3): upscaled sources per set, as bench:peers (0: none)  --per-photo
//   --ab JSON: A/B of detection settings in one page — A the shipped ones, B these overrides
//   (e.g. '{"edges":{"pad":0,"fill":"black","wholeAsPass":false}}'), photo by photo alternately,
//   through the worker's pipeline as /detect LIVENESS runs it; both sides' bands and B/A
//   --env-ab JSON: the same for runtime options — A the defaults, B a second engine with these
//   createEngine options (e.g. '{"modelWorkers":2}'), engine.detect photo by photo alternately
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, withBrowserSession } from '../harness/browser-session.ts';
import type { StagedCall } from './pages/stages.ts';
import { BANDS, SINGLE_ID, bandOf, type BenchImage } from './peers-data.ts';
import { ManifestSchema, benchImages, upscaleSources, upscaledImages } from './peers-manifest.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    passes: { type: 'string', default: '3' },
    only: { type: 'string' },
    threads: { type: 'string', default: '2' },
    upscale: { type: 'string', default: '3' },
    'per-photo': { type: 'boolean', default: false },
    single: { type: 'boolean', default: false },
    console: { type: 'boolean', default: false },
    ab: { type: 'string' },
    'env-ab': { type: 'string' },
  },
});
const DATA = resolve(projectRoot, '../shared/data');
const manifest = ManifestSchema.parse(JSON.parse(readFileSync(resolve(DATA, 'manifest.json'), 'utf8')));
if (!['1', '2'].includes(values.threads)) throw new Error('--threads must be 1 or 2');
const all = benchImages(manifest);
const SINGLE: BenchImage = { path: SINGLE_ID, set: 'upscaled', width: 640, height: 480, band: bandOf(640, 480), expectedFaces: 1 };
const images = values.single ? [SINGLE] : [...all, ...upscaledImages(upscaleSources(all, Number(values.upscale)))].filter((i) => !values.only || i.path.includes(values.only));
const data = images.filter((i) => i.set !== 'upscaled');
const STAGES = ['decode', 'detect', 'mesh', 'demographics', 'liveness', 'total'] as const;

await withBrowserSession({ console: values.console, callTimeoutMs: 900_000, optimizeEntries: ['/tools/bench/pages/stages.html'] }, async (session) => {
  const envB = values['env-ab'] ? `&envB=${encodeURIComponent(values['env-ab'])}` : '';
  await session.open(`/tools/bench/pages/stages.html?threads=${values.threads}${envB}`);
  for (let i = 0; i < data.length; i += 10) {
    const chunk = data.slice(i, i + 10).map((img) => ({ id: img.path, bytes: [...readFileSync(resolve(DATA, img.path))], type: img.path.endsWith('.png') ? 'image/png' : 'image/jpeg' }));
    await session.call('load', chunk);
  }
  // the upscaled photos (and the single face) are made in the page, as bench:peers makes them
  for (const img of images.filter((i) => i.set === 'upscaled')) await session.call('make', img.path);
  const ids = images.map((i) => i.path);
  // warm-up calls: the first 8 photos (the single face 8 times), so a model peer is up before the timed calls
  const warm = Array.from({ length: 8 }, (_, i) => ids[i % ids.length]!);
  if (values.ab || values['env-ab']) {
    const b = values.ab ? (JSON.parse(values.ab) as Record<string, unknown>) : undefined;
    const runSide = (list: string[], pass: number, side: 'A' | 'B') =>
      b ? session.call<StagedCall[]>('runWith', list, pass, side === 'A' ? undefined : b) : session.call<StagedCall[]>('run', list, pass, side);
    await runSide(warm, -1, 'A');
    await runSide(warm, -1, 'B');
    const sides: Record<'A' | 'B', StagedCall[]> = { A: [], B: [] };
    for (let p = 0; p < Number(values.passes); p++) {
      for (const id of ids) {
        // the order flips every photo, so neither side always runs first
        const order = (p + ids.indexOf(id)) % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
        for (const side of order) sides[side].push(...(await runSide([id], p, side)));
      }
    }
    const total: Record<string, number> = {};
    for (const band of BANDS) {
      const inBand = images.filter((i) => i.band === band.id);
      if (!inBand.length) continue;
      for (const side of ['A', 'B'] as const) {
        const med = (id: string, pick: (c: StagedCall) => number) => median(sides[side].filter((c) => c.id === id).map(pick));
        const sum = (pick: (c: StagedCall) => number) => inBand.reduce((a, i) => a + med(i.path, pick), 0);
        total[`${band.id}${side}`] = sum((c) => c.timings.total ?? 0);
        console.log(`${side} ${band.label}: ${inBand.length} photos, ${sum((c) => c.faces)} faces | ${STAGES.map((s) => `${s} ${sum((c) => c.timings[s] ?? 0).toFixed(0)}`).join(' · ')}`);
      }
      console.log(`  B/A total ${(total[`${band.id}B`]! / total[`${band.id}A`]!).toFixed(3)}`);
    }
    return;
  }
  await session.call('run', warm, -1); // warm-up
  const calls: StagedCall[] = [];
  for (let p = 0; p < Number(values.passes); p++) calls.push(...(await session.call<StagedCall[]>('run', ids, p)));
  const med = (id: string, pick: (c: StagedCall) => number) => median(calls.filter((c) => c.id === id).map(pick));
  if (values['per-photo']) {
    for (const img of images) {
      console.log(`${img.path.padEnd(44)} ${img.width}x${img.height} faces ${med(img.path, (c) => c.faces)} ms ${med(img.path, (c) => c.ms).toFixed(0)} | ${STAGES.map((s) => `${s} ${med(img.path, (c) => c.timings[s] ?? 0).toFixed(1)}`).join(' ')}`);
    }
  }
  for (const band of BANDS) {
    const inBand = images.filter((i) => i.band === band.id);
    if (!inBand.length) continue;
    const sum = (pick: (c: StagedCall) => number) => inBand.reduce((a, i) => a + med(i.path, pick), 0);
    const faces = sum((c) => c.faces);
    console.log(`${band.label}: ${inBand.length} photos, ${faces} faces, engine.detect ${sum((c) => c.ms).toFixed(0)} ms | ${STAGES.map((s) => `${s} ${sum((c) => c.timings[s] ?? 0).toFixed(0)}`).join(' · ')}`);
  }
});
