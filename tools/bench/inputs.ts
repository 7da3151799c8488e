// `npm run bench:inputs`: what each kind of `image` costs before detection (docs/intake.md,
// "Decoded inputs"), in headless Chromium with the real engine, for a 640×480 and a 12 MP photo:
// the page's own work, the decode the engine reports, the whole detect call, the ImageData copy
// postMessage makes and the JPEG store_image encodes. Prints markdown tables (medians).
//   --reps 5  --console
import { parseArgs } from 'node:util';
import { withBrowserSession } from '../harness/browser-session.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import type { InputCost, SizeCost } from './pages/inputs.ts';

const PAGE = '/tools/bench/pages/inputs.html';
const median = (values: number[]) => (values.length ? [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]! : NaN);
const f1 = (values: number[]) => (values.length ? median(values).toFixed(1) : '–');

const { values } = parseArgs({ options: { reps: { type: 'string', default: '5' }, console: { type: 'boolean', default: false } } });
const before = cpuSnapshot();
const run = await withBrowserSession({ console: values.console, callTimeoutMs: 1_800_000, optimizeEntries: [PAGE] }, async (session) => {
  await session.open(PAGE);
  const measured = await session.call<{ inputs: InputCost[]; sizes: SizeCost[] }>('measure', Number(values.reps));
  return { ...measured, chromium: session.browser.version() };
});
const others = othersShare(before, cpuSnapshot());
console.log(
  `\nChromium ${run.chromium}, ${values.reps} rounds, medians, ms; other processes used ${others === undefined ? 'n/a' : `${(others * 100).toFixed(0)}%`} of the CPU\n`,
);
console.log('| size | input | page (main thread) | decode (engine timings) | detect call |');
console.log('|---|---|--:|--:|--:|');
for (const r of run.inputs) console.log(`| ${r.size} | ${r.kind} | ${f1(r.pageMs)} | ${f1(r.decodeMs)} | ${f1(r.callMs)} |`);
console.log('\n| size | JPEG q 0.9 | ImageData copy (postMessage) | store_image JPEG encode | stored bytes |');
console.log('|---|--:|--:|--:|--:|');
for (const s of run.sizes) {
  console.log(`| ${s.size} | ${(s.jpegBytes / 1024).toFixed(0)} KB | ${f1(s.imageDataCopyMs)} | ${f1(s.storeEncodeMs)} | ${(s.storeBytes / 1024).toFixed(0)} KB |`);
}
