// The side-by-side bench's arithmetic (pure and dependency-free: the pages import it too, and
// what they import counts in the bytes each library fetches): size bands, the upscaled
// speed-only photos' ids and sizes, the two configurations, per-image medians, band sums,
// ratios, call order, kinds of fetched bytes. The photo list: peers-manifest.ts; the ratio
// tables: peers-summary.ts.
import { median } from './stats.ts';

/** the three libraries, in the order of the report's columns */
export const PEERS = ['human', 'faceapi', 'engine'] as const;
export type Peer = (typeof PEERS)[number];
export const PEER_LABELS: Record<Peer, string> = { human: 'human', faceapi: 'face-api', engine: 'this engine' };

/** the id of the single-face 640×480 photo made in the page (every other id is a data path or an upscaled id) */
export const SINGLE_ID = 'single';

/**
 * image-size bands by pixel count (1 MP = 10⁶ pixels), phone photos' sizes included (3–12 MP);
 * an image on a limit belongs to the lower band
 */
export const BANDS = [
  { id: 'upTo1', label: '≤ 1 MP', maxPixels: 1_000_000 },
  { id: 'from1to3', label: '1–3 MP', maxPixels: 3_000_000 },
  { id: 'from3to8', label: '3–8 MP', maxPixels: 8_000_000 },
  { id: 'over8', label: '> 8 MP', maxPixels: Number.POSITIVE_INFINITY },
] as const;
export type BandId = (typeof BANDS)[number]['id'];

export function bandOf(width: number, height: number): BandId {
  if (!(width > 0 && height > 0)) throw new Error(`no size band for ${width}×${height}`);
  return BANDS.find((b) => width * height <= b.maxPixels)!.id;
}

/**
 * The speed-only set: shared photos upscaled in the bench page to these sizes (JPEG, UPSCALE_QUALITY),
 * because ../shared/data has two photos above 3 MP and none above 8. Their faces are counted, not judged
 * (an upscaled photo has no count of its own).
 */
export const UPSCALE_MEGAPIXELS = [8, 12] as const;
export type UpscaleMegapixels = (typeof UPSCALE_MEGAPIXELS)[number];
export const UPSCALE_QUALITY = 0.9;
const UPSCALED_PREFIX = 'upscaled/';

/** the id of `source` (a data path) upscaled to `megapixels`: "upscaled/12mp/groups/x.jpg" */
export const upscaledId = (source: string, megapixels: UpscaleMegapixels): string => `${UPSCALED_PREFIX}${megapixels}mp/${source}`;

/** An upscaled id's source and size; undefined for any other id. */
export function parseUpscaledId(id: string): { source: string; megapixels: UpscaleMegapixels } | undefined {
  const match = /^upscaled\/(\d+)mp\/(.+)$/.exec(id);
  if (!match) return undefined;
  const megapixels = Number(match[1]) as UpscaleMegapixels;
  return UPSCALE_MEGAPIXELS.includes(megapixels) ? { source: match[2]!, megapixels } : undefined;
}

/** `width`×`height` scaled to just under `megapixels`, aspect kept: whole pixels, never past the band limit. */
export function upscaledSize(width: number, height: number, megapixels: number): { width: number; height: number } {
  if (!(width > 0 && height > 0 && megapixels > 0)) throw new Error(`cannot scale ${width}×${height} to ${megapixels} MP`);
  const scale = Math.sqrt((megapixels * 1e6) / (width * height));
  return { width: Math.floor(width * scale), height: Math.floor(height * scale) };
}

export interface BenchImage {
  /** path inside ../shared/data, e.g. "groups/bbt1.jpg", or an upscaled id (upscaledId) */
  path: string;
  set: 'faces' | 'groups' | 'upscaled';
  width: number;
  height: number;
  band: BandId;
  /** the manifest's face_count (helper's visual count; some group counts are approximate); null where not judged (upscaled) */
  expectedFaces: number | null;
  notes?: string;
}

/** The two configurations every run measures: a page with COOP/COEP (2 WASM threads) and one without (1 thread for every library). */
export const CONFIGS = [
  { id: 'isolated', label: 'COOP/COEP, 2 threads', isolation: true, threads: 2 },
  { id: 'plain', label: 'no COOP/COEP, 1 thread', isolation: false, threads: 1 },
] as const;
export type ConfigId = (typeof CONFIGS)[number]['id'];
export type Config = (typeof CONFIGS)[number];

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
 * A pass's photo order: the single face `singles` times, spread evenly through the photos (the
 * first at the start), not all at the pass's start, where the state the warm-up or the previous
 * pass left (a large photo's memory, the other configuration's cold starts) would weigh on every
 * one of its calls.
 */
export function passOrder(photos: readonly string[], singles: number): string[] {
  const order: string[] = [];
  let placed = 0;
  for (let i = 0; i <= photos.length; i++) {
    while (placed < singles && placed * photos.length <= i * singles) {
      order.push(SINGLE_ID);
      placed++;
    }
    if (i < photos.length) order.push(photos[i]!);
  }
  return order;
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

export interface FetchedResponse {
  url: string;
  /** the response body's size */
  bytes: number;
  /** of that, an inline source map vite's dev server appended to a script (not in a build) */
  sourceMapBytes?: number;
}

/** Bytes per kind of a list of responses, without dev-server inline source maps. */
export function bytesByKind(responses: readonly FetchedResponse[]): Record<FetchKind, number> {
  const out: Record<FetchKind, number> = { code: 0, wasm: 0, models: 0, page: 0, photo: 0 };
  for (const r of responses) out[fetchKind(r.url)] += r.bytes - (r.sourceMapBytes ?? 0);
  return out;
}

/** The length of an inline source map comment at the end of a script's bytes (latin1 text), else 0. */
export function inlineSourceMapBytes(latin1: string): number {
  const at = latin1.lastIndexOf('//# sourceMappingURL=data:');
  return at < 0 ? 0 : latin1.length - at;
}
