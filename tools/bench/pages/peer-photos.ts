// The bench photos as the pages get them: any image of ../shared/data/{faces,groups} by its
// path in the data folder, and the single-face 640×480 JPEG the /detect bench uses.
import { SINGLE_FACE } from '../detect-photos.ts';

/** the id of the single-face photo made in the page (every other id is a data path) */
export const SINGLE_ID = 'single';

// lazy: a page fetches only the URL modules it asks for (a cold start loads one)
const urls = import.meta.glob<string>('../../../../shared/data/{faces,groups}/**/*.{jpg,jpeg,png}', { query: '?url', import: 'default' });
const byPath = new Map(Object.entries(urls).map(([key, load]) => [key.slice(key.indexOf('shared/data/') + 'shared/data/'.length), load]));

/** the data paths the page can serve (for a check against the manifest) */
export const dataPaths = (): string[] => [...byPath.keys()];

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

export const benchPhoto = (id: string): Promise<Blob> => (id === SINGLE_ID ? singleFacePhoto() : fetchDataPhoto(id));
