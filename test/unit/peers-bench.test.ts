// The side-by-side bench's arithmetic and photo list (tools/bench/peers-data.ts, peers-manifest.ts): size bands, the photo set
// from the real manifest, per-photo medians, band sums, ratios, call order and byte kinds.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  PEERS,
  bandOf,
  bandTotals,
  bytesByKind,
  engineRatios,
  fetchKind,
  inlineSourceMapBytes,
  peerOrder,
  perImageMedians,
  ratio,
  sumOfMedians,
  type BenchImage,
  type Samples,
} from '../../tools/bench/peers-data.ts';
import { ManifestSchema, benchImages } from '../../tools/bench/peers-manifest.ts';

const manifestPath = fileURLToPath(new URL('../../../shared/data/manifest.json', import.meta.url));

describe('size bands', () => {
  it('puts an image on a limit into the lower band', () => {
    expect(bandOf(1000, 1000)).toBe('upTo1');
    expect(bandOf(1001, 1000)).toBe('from1to3');
    expect(bandOf(1500, 2000)).toBe('from1to3');
    expect(bandOf(1500, 2001)).toBe('over3');
    expect(bandOf(150, 150)).toBe('upTo1');
  });

  it('rejects an image without a size', () => {
    expect(() => bandOf(0, 100)).toThrow();
    expect(() => bandOf(Number.NaN, 100)).toThrow();
  });
});

describe('bench photos from the manifest', () => {
  const images = benchImages(ManifestSchema.parse(JSON.parse(readFileSync(manifestPath, 'utf8'))));

  it('takes every image of faces/ and groups/ and nothing else, sorted', () => {
    expect(images.filter((i) => i.set === 'groups')).toHaveLength(18);
    expect(images.every((i) => /^(faces|groups)\//.test(i.path))).toBe(true);
    expect(images.map((i) => i.path)).toEqual([...images.map((i) => i.path)].sort());
    expect(images.some((i) => i.path === 'faces/obama/obama.jpg')).toBe(true);
  });

  it('gives each image the band of its manifest size', () => {
    for (const i of images) expect(i.band).toBe(bandOf(i.width, i.height));
    const obama3 = images.find((i) => i.path === 'faces/obama/obama3.jpg')!;
    expect(obama3.band).toBe('over3'); // 1434×2333
  });

  it('skips files that are not images and other folders', () => {
    const picked = benchImages({
      files: [
        { path: 'faces/a/a.jpg', face_count: 1, width: 10, height: 10 },
        { path: 'bad/not_an_image.jpg', face_count: null, width: null, height: null },
        { path: 'negatives/n.jpg', face_count: 0, width: 10, height: 10 },
        { path: 'groups/readme.txt', face_count: null, width: null, height: null },
      ],
    });
    expect(picked.map((i) => i.path)).toEqual(['faces/a/a.jpg']);
  });
});

describe('medians, sums and ratios', () => {
  const samples: Samples = {
    human: { a: [10, 30, 20], b: [100, 300, 200] },
    faceapi: { a: [5, 5, 5], b: [50] },
    engine: { a: [40, 20, 30], b: [400, 600, 500] },
  };
  const medians = perImageMedians(samples, ['a', 'b']);

  it('takes the median of each photo per library', () => {
    expect(medians.human).toEqual({ a: 20, b: 200 });
    expect(medians.engine).toEqual({ a: 30, b: 500 });
    expect(medians.faceapi.b).toBe(50);
  });

  it('sums per-photo medians, NaN when a photo was never answered', () => {
    expect(sumOfMedians(medians, ['a', 'b'])).toEqual({ human: 220, faceapi: 55, engine: 530 });
    expect(sumOfMedians(perImageMedians(samples, ['a', 'c']), ['a', 'c']).human).toBeNaN();
  });

  it('sums per band and keeps empty bands', () => {
    const imgs: BenchImage[] = [
      { path: 'a', set: 'faces', width: 100, height: 100, band: 'upTo1', expectedFaces: 1 },
      { path: 'b', set: 'groups', width: 2000, height: 1000, band: 'from1to3', expectedFaces: 4 },
    ];
    const bands = bandTotals(imgs, medians);
    expect(bands.map((b) => [b.band, b.images])).toEqual([
      ['upTo1', 1],
      ['from1to3', 1],
      ['over3', 0],
    ]);
    expect(bands[1]!.sums).toEqual({ human: 200, faceapi: 50, engine: 500 });
    expect(bands[1]!.megapixels).toBeCloseTo(2);
    expect(bands[2]!.sums.engine).toBe(0);
  });

  it('gives engine / human and engine / face-api, NaN without a positive divisor', () => {
    expect(engineRatios({ human: 200, faceapi: 50, engine: 100 })).toEqual({ vsHuman: 0.5, vsFaceapi: 2 });
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(undefined, 2)).toBeNaN();
    expect(ratio(3, Number.NaN)).toBeNaN();
  });
});

describe('call order', () => {
  it('rotates who goes first, each library first equally often', () => {
    expect(peerOrder(0)).toEqual(['human', 'faceapi', 'engine']);
    expect(peerOrder(1)).toEqual(['faceapi', 'engine', 'human']);
    expect(peerOrder(3)).toEqual(peerOrder(0));
    expect(peerOrder(-1)).toEqual(peerOrder(2));
    const firsts = Array.from({ length: 9 }, (_, i) => peerOrder(i)[0]);
    for (const p of PEERS) expect(firsts.filter((f) => f === p)).toHaveLength(3);
  });
});

describe('bytes by kind', () => {
  it('tells the libraries\' code, wasm and models from the photo and the bench page', () => {
    const base = 'http://127.0.0.1:5173';
    expect(fetchKind(`${base}/@fs/work/shared/data/faces/obama/obama.jpg`)).toBe('photo');
    expect(fetchKind(`${base}/tools/bench/pages/peer-frame.ts`)).toBe('page');
    expect(fetchKind(`${base}/@vite/client`)).toBe('page');
    expect(fetchKind(`${base}/tools/bench/pages/peer-frame.html?peer=human`)).toBe('page');
    expect(fetchKind(`${base}/node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm`)).toBe('wasm');
    expect(fetchKind(`${base}/ort/ort-wasm-simd-threaded.wasm`)).toBe('wasm');
    expect(fetchKind(`${base}/models/faceres.onnx`)).toBe('models');
    expect(fetchKind(`${base}/models/manifest.json`)).toBe('models');
    expect(fetchKind(`${base}/node_modules/@vladmandic/human/models/faceres.json`)).toBe('models');
    expect(fetchKind(`${base}/node_modules/@vladmandic/face-api/model/ssd_mobilenetv1_model-weights_manifest.json`)).toBe('models');
    expect(fetchKind(`${base}/node_modules/.vite/deps/@vladmandic_human.js?v=1`)).toBe('code');
    expect(fetchKind(`${base}/src/worker/vision.worker.ts?worker_file&type=module`)).toBe('code');
    expect(fetchKind(`${base}/package.json`)).toBe('code');
  });

  it('adds up bodies per kind', () => {
    expect(
      bytesByKind([
        { url: '/models/a.onnx', bytes: 10 },
        { url: '/models/b.onnx', bytes: 5 },
        { url: '/ort/x.wasm', bytes: 7 },
        { url: '/tools/bench/pages/peers.ts', bytes: 1 },
      ]),
    ).toEqual({ code: 0, wasm: 7, models: 15, page: 1, photo: 0 });
  });

  it('leaves out the source maps the dev server inlines into scripts', () => {
    const script = 'export const a = 1;\n';
    const map = '//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==\n';
    expect(inlineSourceMapBytes(script + map)).toBe(map.length);
    expect(inlineSourceMapBytes(script)).toBe(0);
    expect(inlineSourceMapBytes(`${script}//# sourceMappingURL=a.js.map\n`)).toBe(0);
    const bytes = bytesByKind([{ url: '/src/a.ts', bytes: script.length + map.length, sourceMapBytes: map.length }]);
    expect(bytes.code).toBe(script.length);
  });
});
