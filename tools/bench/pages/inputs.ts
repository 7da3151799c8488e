// Runs in the inputs bench page (driven by tools/bench/inputs.ts): for a 640×480 and a 12 MP
// photo (JPEG q 0.9 made here from shared photos), what each kind of `image` costs before
// detection, in the real engine: the page's own work (decoded-input.ts: copy, clone or
// snapshot), the decode the engine reports (timings.decode: the page's work plus the worker's
// read/decode/convert), the ImageData copy postMessage makes, and the JPEG store_image encodes.
import obamaUrl from '../../../../shared/data/faces/obama/obama.jpg?url';
import groupUrl from '../../../../shared/data/groups/obama_and_biden.jpg?url';
import { createEngine, type Engine } from '../../../src/engine/engine.ts';
import { encodeBitmap } from '../../../src/intake/decoded-bitmap.ts';
import { DECODED_KINDS, transferableImage, type DecodedImageInput, type DecodedKind } from '../../../src/intake/decoded-input.ts';
import { decodedFrom } from '../../harness/decoded-images.ts';
import { expose } from '../../harness/page.ts';

export interface InputCost {
  size: string;
  kind: 'Blob (JPEG)' | DecodedKind;
  /** the page's work before posting (decoded kinds), ms */
  pageMs: number[];
  /** timings.decode as the engine reports it, ms */
  decodeMs: number[];
  /** the whole detect call, ms */
  callMs: number[];
}

export interface SizeCost {
  size: string;
  jpegBytes: number;
  /** structuredClone of the ImageData: what postMessage copies */
  imageDataCopyMs: number[];
  /** the JPEG store_image makes of a decoded input (encodeBitmap) */
  storeEncodeMs: number[];
  storeBytes: number;
}

const SIZES = [
  { name: '640×480', url: obamaUrl, width: 640, height: 480 },
  { name: '12 MP (4000×3000)', url: groupUrl, width: 4000, height: 3000 },
];

let engine: Engine | undefined;

async function photo(url: string, width: number, height: number): Promise<Blob> {
  const source = await createImageBitmap(await (await fetch(url)).blob());
  const canvas = new OffscreenCanvas(width, height);
  // cover: the centre of the source at the target's aspect
  const scale = Math.max(width / source.width, height / source.height);
  const [w, h] = [width / scale, height / scale];
  canvas.getContext('2d')!.drawImage(source, (source.width - w) / 2, (source.height - h) / 2, w, h, 0, 0, width, height);
  source.close();
  return canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 });
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await run();
  return [value, performance.now() - t];
}

async function measure(reps: number): Promise<{ inputs: InputCost[]; sizes: SizeCost[] }> {
  engine ??= await createEngine({ storageName: 'bench-inputs' });
  await engine.warmUp();
  let lastDecode = 0;
  engine.diagnostics.onTimings((event) => void (lastDecode = event.timings.decode));
  const inputs: InputCost[] = [];
  const sizes: SizeCost[] = [];
  for (const size of SIZES) {
    const blob = await photo(size.url, size.width, size.height);
    const kinds = ['Blob (JPEG)', ...DECODED_KINDS] as const;
    const rows = new Map(kinds.map((kind) => [kind, { size: size.name, kind, pageMs: [], decodeMs: [], callMs: [] } as InputCost]));
    // rounds over the kinds, so a slow moment of the machine spreads over all of them
    for (let r = 0; r < reps; r++) {
      for (const kind of kinds) {
        const row = rows.get(kind)!;
        const image = kind === 'Blob (JPEG)' ? blob : await decodedFrom(blob, kind);
        if (kind !== 'Blob (JPEG)') {
          const [prepared, ms] = await timed(() => transferableImage(image as DecodedImageInput));
          row.pageMs.push(ms);
          if ('close' in prepared.image) prepared.image.close();
        }
        const [answer, ms] = await timed(() => engine!.detect({ image }));
        if ('Errors' in answer) throw new Error(`${kind} ${size.name}: ${JSON.stringify(answer.Errors)}`);
        row.callMs.push(ms);
        row.decodeMs.push(lastDecode);
        if (kind === 'VideoFrame' || kind === 'ImageBitmap') (image as VideoFrame | ImageBitmap).close();
      }
    }
    inputs.push(...rows.values());
    const imageData = (await decodedFrom(blob, 'ImageData')) as ImageData;
    const bitmap = await createImageBitmap(blob);
    const cost: SizeCost = { size: size.name, jpegBytes: blob.size, imageDataCopyMs: [], storeEncodeMs: [], storeBytes: 0 };
    for (let r = 0; r < reps; r++) {
      cost.imageDataCopyMs.push((await timed(async () => structuredClone(imageData)))[1]);
      const [stored, ms] = await timed(() => encodeBitmap(bitmap));
      cost.storeEncodeMs.push(ms);
      cost.storeBytes = stored.bytes.length;
    }
    bitmap.close();
    sizes.push(cost);
  }
  return { inputs, sizes };
}

expose({ measure });
