// A template's thumbnail: the enrolled face cut out of its stored photo (with some margin),
// drawn on a small canvas. Without a stored photo, a plain placeholder says so.
import { h } from '../ui/dom.ts';

const SIZE = 96;

export async function faceThumbnail(image: Blob | null, box: { topLeftX: number; topLeftY: number; width: number; height: number } | null, label: string): Promise<HTMLElement> {
  if (!image || !box) return h('div', { class: 'thumb none', role: 'img', 'aria-label': `${label}: no photo stored`, text: 'no photo' });
  const bitmap = await createImageBitmap(image);
  const side = Math.max(box.width, box.height) * 1.4;
  const cx = box.topLeftX + box.width / 2;
  const cy = box.topLeftY + box.height / 2;
  const canvas = h('canvas', { class: 'thumb', role: 'img', 'aria-label': label, width: String(SIZE), height: String(SIZE) });
  const ctx = canvas.getContext('2d')!;
  ctx.fillStyle = '#e8ebf3';
  ctx.fillRect(0, 0, SIZE, SIZE);
  ctx.drawImage(bitmap, cx - side / 2, cy - side / 2, side, side, 0, 0, SIZE, SIZE);
  bitmap.close();
  return canvas;
}
