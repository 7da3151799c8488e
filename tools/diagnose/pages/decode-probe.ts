// window.decodeProbe(calls): the bench's single face (640×480 JPEG) through engine.detect `calls`
// times after two warm-up calls; per call the whole call, the engine's reported timings (with any
// extra marks a temporary instrumentation adds), and a page-side createImageBitmap of the same blob.
import { createEngine } from '../../../src/index.ts';
import { singleFacePhoto } from '../../bench/pages/peer-photos.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function decodeProbe(calls: number, rebuilt = false, busyMs = 0) {
  const made = await singleFacePhoto();
  // the bench's frames hold each photo as a Blob made from its bytes
  const photo = rebuilt ? new Blob([await made.arrayBuffer()], { type: made.type }) : made;
  const engine = await createEngine({ backend: 'wasm', numThreads: 1 });
  const timings: Record<string, number>[] = [];
  engine.diagnostics.onTimings((event) => timings.push({ ...(event.timings as unknown as Record<string, number>) }));
  const call: number[] = [];
  const pageDecode: number[] = [];
  for (let i = 0; i < calls + 8; i++) {
    const t0 = performance.now();
    await engine.detect({ image: photo, selector: 'LIVENESS' });
    if (i >= 8) call.push(performance.now() - t0);
    const t1 = performance.now();
    const bitmap = await createImageBitmap(photo);
    if (i >= 8) pageDecode.push(performance.now() - t1);
    bitmap.close();
    // another library's turn on the page's thread, as in bench:peers
    const until = performance.now() + busyMs;
    while (performance.now() < until);
  }
  const measured = timings.slice(8);
  const keys = Object.keys(measured[0] ?? {});
  await engine.close();
  return {
    userAgent: navigator.userAgent,
    call: median(call),
    pageDecode: median(pageDecode),
    timings: Object.fromEntries(keys.map((k) => [k, median(measured.map((t) => t[k]!))])),
  };
}
(globalThis as unknown as { decodeProbe: typeof decodeProbe }).decodeProbe = decodeProbe;
