// The bench photos as the pages get them: any image of ../shared/data/{faces,groups} by its
// path in the data folder, the single-face 640×480 JPEG the /detect bench uses, and the
// speed-only upscaled photos (peers-data.ts), made here so nothing generated is ever stored.
import { SINGLE_FACE } from '../detect-photos.ts';
import { SINGLE_ID, UPSCALE_QUALITY, parseUpscaledId, upscaledSize, type UpscaleMegapixels } from '../peers-data.ts';


// lazy: a page fetches only the URL modules it asks for (a cold start loads one)
const urls = import.meta.glob<string>('../../../../shared/data/{faces,groups}/**/*.{jpg,jpeg,png}', { query: '?url', import: 'default' });
const byPath = new Map(Object.entries(urls).map(([key, load]) => [key.slice(key.indexOf('shared/data/') + 'shared/data/'.length), load]));

export async function fetchDataPhoto(path: string): Promise<Blob> {
  const load = byPath.get(path);
  if (!load) throw new Error(`no data photo ${path} (known: ${byPath.size})`);
  const response = await fetch(await load());
  if (!response.ok) throw new Error(`fetching ${path}: HTTP ${response.status}`);
  return response.blob();
}

/** obama.jpg cropped and scaled to 640×480, JPEG (tools/bench/detect-photos.ts) */
export async function singleFacePhoto(): Promise<Blob> {
  const bitmap = await createImageBitmap(await fetchDataPhoto(SINGLE_FACE.source));
  const { crop, width, height, quality } = SINGLE_FACE;
  const canvas = new OffscreenCanvas(width, height);
  canvas.getContext('2d')!.drawImage(bitmap, crop.x, crop.y, crop.width, crop.height, 0, 0, width, height);
  bitmap.close();
  return canvas.convertToBlob({ type: 'image/jpeg', quality });
}

/** a data photo scaled up to `megapixels` (upright, smoothed at high quality), JPEG at UPSCALE_QUALITY */
async function upscaledPhoto(source: string, megapixels: UpscaleMegapixels): Promise<Blob> {
  const bitmap = await createImageBitmap(await fetchDataPhoto(source), { imageOrientation: 'from-image' });
  const { width, height } = upscaledSize(bitmap.width, bitmap.height, megapixels);
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d')!;
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  return canvas.convertToBlob({ type: 'image/jpeg', quality: UPSCALE_QUALITY });
}

/** Any bench id: the single face, an upscaled id, or a data path. */
export function benchPhoto(id: string): Promise<Blob> {
  if (id === SINGLE_ID) return singleFacePhoto();
  const upscaled = parseUpscaledId(id);
  return upscaled ? upscaledPhoto(upscaled.source, upscaled.megapixels) : fetchDataPhoto(id);
}

/** Whether the page can make `id` (an upscaled id needs its source). */
export function knownPhoto(id: string): boolean {
  if (id === SINGLE_ID) return true;
  return byPath.has(parseUpscaledId(id)?.source ?? id);
}
