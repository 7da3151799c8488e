// The side-by-side bench's data and arithmetic (pure: used by the Node driver, its page and
// the unit test): which images, which size band each falls in, per-image medians, band sums
// and ratios.
import { z } from 'zod';
import { median } from './stats.ts';

/** the three libraries, in the order of the report's columns */
export const PEERS = ['human', 'faceapi', 'engine'] as const;
export type Peer = (typeof PEERS)[number];
export const PEER_LABELS: Record<Peer, string> = { human: 'human', faceapi: 'face-api', engine: 'this engine' };

/** image-size bands by pixel count (1 MP = 10⁶ pixels); an image on a limit belongs to the lower band */
export const BANDS = [
  { id: 'upTo1', label: '≤ 1 MP', maxPixels: 1_000_000 },
  { id: 'from1to3', label: '1–3 MP', maxPixels: 3_000_000 },
  { id: 'over3', label: '> 3 MP', maxPixels: Number.POSITIVE_INFINITY },
] as const;
export type BandId = (typeof BANDS)[number]['id'];

export function bandOf(width: number, height: number): BandId {
  if (!(width > 0 && height > 0)) throw new Error(`no size band for ${width}×${height}`);
  return BANDS.find((b) => width * height <= b.maxPixels)!.id;
}

/** the parts of ../shared/data/manifest.json the bench reads */
const ManifestFileSchema = z.object({
  path: z.string(),
  kind: z.string().optional(),
  face_count: z.number().int().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  notes: z.string().nullable().optional(),
});
export const ManifestSchema = z.object({ files: z.array(ManifestFileSchema) });
export type Manifest = z.infer<typeof ManifestSchema>;

export interface BenchImage {
  /** path inside ../shared/data, e.g. "groups/bbt1.jpg" */
  path: string;
  set: 'faces' | 'groups';
  width: number;
  height: number;
  band: BandId;
  /** the manifest's face_count (helper's visual count; some group counts are approximate) */
  expectedFaces: number | null;
  notes?: string;
}

const IMAGE_EXT = /\.(jpe?g|png)$/i;

/** Every image of faces/ and groups/ in the manifest, sorted by path. */
export function benchImages(manifest: Manifest): BenchImage[] {
  const out: BenchImage[] = [];
  for (const f of manifest.files) {
    const set = f.path.startsWith('faces/') ? 'faces' : f.path.startsWith('groups/') ? 'groups' : undefined;
    if (!set || !IMAGE_EXT.test(f.path)) continue;
    if (f.width === null || f.height === null) throw new Error(`manifest: ${f.path} has no size`);
    out.push({
      path: f.path,
      set,
      width: f.width,
      height: f.height,
      band: bandOf(f.width, f.height),
      expectedFaces: f.face_count,
      ...(f.notes ? { notes: f.notes } : {}),
    });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** a / b, NaN when either is missing or b is not positive (rendered as "n/a") */
export function ratio(a: number | undefined, b: number | undefined): number {
  return a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : Number.NaN;
}

/** ms of every measured call: peer → image id → one value per pass */
export type Samples = Record<Peer, Record<string, number[]>>;

/** The median of each image's calls, per peer (NaN for an image a peer never answered). */
export function perImageMedians(samples: Samples, ids: readonly string[]): Record<Peer, Record<string, number>> {
  const out = {} as Record<Peer, Record<string, number>>;
  for (const peer of PEERS) {
    out[peer] = {};
    for (const id of ids) out[peer][id] = median(samples[peer]?.[id] ?? []);
  }
  return out;
}

/** Sum over `ids` of each peer's per-image medians (NaN if any image is missing). */
export function sumOfMedians(medians: Record<Peer, Record<string, number>>, ids: readonly string[]): Record<Peer, number> {
  const out = {} as Record<Peer, number>;
  for (const peer of PEERS) out[peer] = ids.reduce((sum, id) => sum + (medians[peer][id] ?? Number.NaN), 0);
  return out;
}

export interface BandTotal {
  band: BandId;
  label: string;
  images: number;
  megapixels: number;
  sums: Record<Peer, number>;
}

/** Per band: how many images, their pixels, and each peer's sum of per-image medians. Empty bands are kept (images 0). */
export function bandTotals(images: readonly BenchImage[], medians: Record<Peer, Record<string, number>>): BandTotal[] {
  return BANDS.map((b) => {
    const inBand = images.filter((i) => i.band === b.id);
    return {
      band: b.id,
      label: b.label,
      images: inBand.length,
      megapixels: inBand.reduce((s, i) => s + (i.width * i.height) / 1e6, 0),
      sums: sumOfMedians(
        medians,
        inBand.map((i) => i.path),
      ),
    };
  });
}

/** engine / human and engine / face-api for one row of times */
export function engineRatios(times: Record<Peer, number>): { vsHuman: number; vsFaceapi: number } {
  return { vsHuman: ratio(times.engine, times.human), vsFaceapi: ratio(times.engine, times.faceapi) };
}

/**
 * The order the three libraries answer the `turn`-th photo of a run in: rotated every turn,
 * so each library follows each other equally often (threads of the one before may still spin).
 */
export function peerOrder(turn: number): Peer[] {
  const k = ((turn % PEERS.length) + PEERS.length) % PEERS.length;
  return [...PEERS.slice(k), ...PEERS.slice(0, k)];
}

/** What a response fetched during a cold start was, judged by its dev-server URL. */
export type FetchKind = 'code' | 'wasm' | 'models' | 'page' | 'photo';
export const LIBRARY_KINDS = ['code', 'wasm', 'models'] as const satisfies readonly FetchKind[];

/**
 * code: the library's JS (bundles, the engine's modules, its worker); wasm; models (weights
 * and their JSON); page: the bench page and vite's client, the same for every library; photo.
 */
export function fetchKind(url: string): FetchKind {
  const path = decodeURIComponent(new URL(url, 'http://x').pathname);
  if (path.includes('/shared/data/')) return 'photo';
  if (path.endsWith('.wasm')) return 'wasm';
  if (/\.(onnx|bin)$/.test(path) || (path.endsWith('.json') && /\/models?\//.test(path))) return 'models';
  if (path.startsWith('/tools/') || path.startsWith('/@vite/') || path.includes('/node_modules/vite/') || path.endsWith('.html') || path === '/') return 'page';
  return 'code';
}

/** Bytes per kind of a list of responses. */
export function bytesByKind(responses: readonly { url: string; bytes: number }[]): Record<FetchKind, number> {
  const out: Record<FetchKind, number> = { code: 0, wasm: 0, models: 0, page: 0, photo: 0 };
  for (const r of responses) out[fetchKind(r.url)] += r.bytes;
  return out;
}
