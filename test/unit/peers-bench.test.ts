// The side-by-side bench's arithmetic and photo list (tools/bench/peers-data.ts, peers-manifest.ts,
// peers-summary.ts): size bands, the photo set from the real manifest, the upscaled speed-only set,
// the quick subset, per-photo medians, band sums, ratios and the ratio tables of both
// configurations, call order and byte kinds.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  PEERS,
  BANDS,
  bandOf,
  bandTotals,
  parseUpscaledId,
  upscaledId,
  upscaledSize,
  bytesByKind,
  engineRatios,
  fetchKind,
  inlineSourceMapBytes,
  passOrder,
  peerOrder,
  perImageMedians,
  ratio,
  sumOfMedians,
  type BenchImage,
  type Samples,
} from '../../tools/bench/peers-data.ts';
import { ManifestSchema, benchImages, quickImages, upscaleSources, upscaledImages } from '../../tools/bench/peers-manifest.ts';
import { callMs, ratioColumns, ratioRows, renderRatioTable, warmTimes, type ConfigTimes } from '../../tools/bench/peers-summary.ts';
import type { Call } from '../../tools/bench/pages/peers.ts';

const manifestPath = fileURLToPath(new URL('../../../shared/data/manifest.json', import.meta.url));

describe('size bands', () => {
  it('puts an image on a limit into the lower band', () => {
    expect(bandOf(1000, 1000)).toBe('upTo1');
    expect(bandOf(1001, 1000)).toBe('from1to3');
    expect(bandOf(1500, 2000)).toBe('from1to3');
    expect(bandOf(1500, 2001)).toBe('from3to8');
    expect(bandOf(4000, 2000)).toBe('from3to8');
    expect(bandOf(4000, 2001)).toBe('over8');
    expect(bandOf(150, 150)).toBe('upTo1');
  });

  it('covers phone photos: 12 MP and 48 MP land in the top band', () => {
    expect(BANDS.map((b) => b.label)).toEqual(['≤ 1 MP', '1–3 MP', '3–8 MP', '> 8 MP']);
    expect(bandOf(4000, 3000)).toBe('over8');
    expect(bandOf(8000, 6000)).toBe('over8');
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
    expect(obama3.band).toBe('from3to8'); // 1434×2333
  });

  it('upscales the largest group photos and one face per person, to 8 MP (3–8 band) and 12 MP (> 8)', () => {
    const sources = upscaleSources(images, 3);
    expect(sources.map((s) => s.set)).toEqual(['groups', 'groups', 'groups', 'faces', 'faces', 'faces']);
    const people = sources.filter((s) => s.set === 'faces').map((s) => s.path.split('/')[1]);
    expect(new Set(people).size).toBe(3);
    expect(sources[0]!.path).toBe('groups/group-5.jpg'); // the largest group photo (1920×1635)
    expect(sources.find((s) => s.set === 'faces')!.path).toBe('faces/obama/obama3.jpg');
    const upscaled = upscaledImages(sources);
    expect(upscaled).toHaveLength(12);
    expect(upscaled.filter((i) => i.band === 'from3to8')).toHaveLength(6);
    expect(upscaled.filter((i) => i.band === 'over8')).toHaveLength(6);
    for (const i of upscaled) {
      expect(i.set).toBe('upscaled');
      expect(i.expectedFaces).toBeNull(); // counted, not judged
      expect(parseUpscaledId(i.path)?.source).toBe(sources.find((s) => i.path.endsWith(s.path))!.path);
    }
  });

  it('takes one photo per band for a quick run, groups first', () => {
    const quick = quickImages(images, 1);
    expect(quick.map((i) => i.band).sort()).toEqual(['from1to3', 'from3to8', 'upTo1']); // no data photo above 8 MP
    expect(quick.every((i) => i.set === 'groups')).toBe(true);
    expect(quickImages(images, 2).filter((i) => i.band === 'upTo1').map((i) => i.set).sort()).toEqual(['faces', 'groups']);
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

describe('upscaled ids and sizes', () => {
  it('round-trips an id and rejects other ids and sizes', () => {
    expect(upscaledId('groups/a b.jpg', 12)).toBe('upscaled/12mp/groups/a b.jpg');
    expect(parseUpscaledId('upscaled/8mp/faces/x/y.jpg')).toEqual({ source: 'faces/x/y.jpg', megapixels: 8 });
    expect(parseUpscaledId('groups/a.jpg')).toBeUndefined();
    expect(parseUpscaledId('upscaled/9mp/groups/a.jpg')).toBeUndefined();
    expect(parseUpscaledId('single')).toBeUndefined();
  });

  it('keeps the aspect and stays within the band limit, close under it', () => {
    for (const [w, h] of [[1920, 1635], [1434, 2333], [640, 480], [1000, 1000], [333, 777]] as const) {
      for (const mp of [8, 12]) {
        const s = upscaledSize(w, h, mp);
        expect(s.width * s.height).toBeLessThanOrEqual(mp * 1e6);
        expect(s.width * s.height).toBeGreaterThan(mp * 1e6 * 0.995);
        expect(Math.abs(s.width / s.height - w / h)).toBeLessThan(0.01);
      }
    }
    expect(() => upscaledSize(0, 10, 8)).toThrow();
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
      ['from3to8', 0],
      ['over8', 0],
    ]);
    expect(bands[1]!.sums).toEqual({ human: 200, faceapi: 50, engine: 500 });
    expect(bands[1]!.megapixels).toBeCloseTo(2);
    expect(bands[3]!.sums.engine).toBe(0);
  });

  it('gives engine / human and engine / face-api, NaN without a positive divisor', () => {
    expect(engineRatios({ human: 200, faceapi: 50, engine: 100 })).toEqual({ vsHuman: 0.5, vsFaceapi: 2 });
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(undefined, 2)).toBeNaN();
    expect(ratio(3, Number.NaN)).toBeNaN();
  });
});

describe('ratio tables of both configurations', () => {
  const imgs: BenchImage[] = [
    { path: 'groups/g.jpg', set: 'groups', width: 1000, height: 800, band: 'upTo1', expectedFaces: 3 },
    { path: 'upscaled/12mp/groups/g.jpg', set: 'upscaled', width: 4000, height: 3000, band: 'over8', expectedFaces: null },
  ];
  /** calls of one pass: per peer and photo ms and decodeMs */
  const calls = (t: Record<string, Record<string, [number, number]>>): Call[] =>
    Object.entries(t).flatMap(([peer, byId]) => Object.entries(byId).map(([id, [ms, decodeMs]]) => ({ peer: peer as Call['peer'], id, ms, decodeMs, faces: 1 })));
  const isolated = calls({
    human: { single: [100, 10], 'groups/g.jpg': [400, 20], 'upscaled/12mp/groups/g.jpg': [2000, 200] },
    faceapi: { single: [200, 10], 'groups/g.jpg': [800, 20], 'upscaled/12mp/groups/g.jpg': [1000, 200] },
    engine: { single: [50, 5], 'groups/g.jpg': [200, 20], 'upscaled/12mp/groups/g.jpg': [1500, 100] },
  });
  const plain = calls({
    human: { single: [100, 10], 'groups/g.jpg': [400, 20], 'upscaled/12mp/groups/g.jpg': [2000, 200] },
    faceapi: { single: [100, 10], 'groups/g.jpg': [400, 20], 'upscaled/12mp/groups/g.jpg': [2000, 200] },
    engine: { single: [100, 10], 'groups/g.jpg': [600, 20], 'upscaled/12mp/groups/g.jpg': [3000, Number.NaN] },
  });
  const configs: ConfigTimes[] = [
    { label: 'COOP/COEP, 2 threads', warm: warmTimes(imgs, isolated, 'withDecode'), cold: { small: { human: 2000, faceapi: 4000, engine: 1000 }, large: { human: 3000, faceapi: 3000, engine: 3000 } } },
    { label: 'no COOP/COEP, 1 thread', warm: warmTimes(imgs, plain, 'withDecode') },
  ];

  it('takes a call with or without its decode, NaN when the decode was not measured', () => {
    const c = { peer: 'engine', id: 'a', ms: 100, decodeMs: 30, faces: 1 } as const;
    expect(callMs(c, 'withDecode')).toBe(100);
    expect(callMs(c, 'withoutDecode')).toBe(70);
    expect(callMs({ ...c, decodeMs: Number.NaN }, 'withoutDecode')).toBeNaN();
  });

  it('has a column for the single face, the groups, each non-empty band and the cold starts', () => {
    expect(ratioColumns(configs).map((c) => c.heading)).toEqual(['single 640×480', '1 groups', '≤ 1 MP (1)', '> 8 MP (1)', 'cold start, small photo', 'cold start, large photo']);
  });

  it('gives engine / human and engine / face-api per configuration, NaN where a configuration has no cold start', () => {
    const rows = ratioRows(configs);
    expect(rows.map((r) => `${r.label} ${r.versus}`)).toEqual([
      'COOP/COEP, 2 threads human',
      'COOP/COEP, 2 threads face-api',
      'no COOP/COEP, 1 thread human',
      'no COOP/COEP, 1 thread face-api',
    ]);
    expect(rows[0]!.ratios).toEqual([0.5, 0.5, 0.5, 0.75, 0.5, 1]);
    expect(rows[1]!.ratios).toEqual([0.25, 0.25, 0.25, 1.5, 0.25, 1]);
    expect(rows[2]!.ratios.slice(0, 4)).toEqual([1, 1.5, 1.5, 1.5]);
    expect(rows[2]!.ratios.slice(4).every(Number.isNaN)).toBe(true);
  });

  it('takes each library\'s decode out for the table without decode', () => {
    const bare = warmTimes(imgs, isolated, 'withoutDecode');
    expect(bare.single).toEqual({ human: 90, faceapi: 190, engine: 45 });
    expect(bare.bands[3]!.sums).toEqual({ human: 1800, faceapi: 800, engine: 1400 });
    expect(warmTimes(imgs, plain, 'withoutDecode').bands[3]!.sums.engine).toBeNaN();
  });

  it('renders one row per configuration and library, engine / human in bold, n/a for the unmeasured', () => {
    const table = renderRatioTable(configs);
    expect(table).toHaveLength(2 + 4);
    expect(table[0]).toBe('| | single 640×480 | 1 groups | ≤ 1 MP (1) | > 8 MP (1) | cold start, small photo | cold start, large photo |');
    expect(table[2]).toBe('| COOP/COEP, 2 threads: engine / human | **0.50** | **0.50** | **0.50** | **0.75** | **0.50** | **1.00** |');
    expect(table[4]).toBe('| no COOP/COEP, 1 thread: engine / human | **1.00** | **1.50** | **1.50** | **1.50** | **n/a** | **n/a** |');
  });
});

describe('call order', () => {
  it('spreads the single face through a pass, first at its start, every photo once in order', () => {
    const photos = Array.from({ length: 10 }, (_, i) => `p${i}`);
    const order = passOrder(photos, 3);
    expect(order.filter((id) => id !== 'single')).toEqual(photos);
    expect(order.flatMap((id, at) => (id === 'single' ? [at] : []))).toEqual([0, 5, 9]);
    expect(passOrder(photos, 1)[0]).toBe('single');
    expect(passOrder([], 2)).toEqual(['single', 'single']);
    expect(passOrder(['a'], 5).filter((id) => id === 'single')).toHaveLength(5);
  });

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
