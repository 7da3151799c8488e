// Makes a .y4m clip from a photo for Chromium's fake webcam
// (--use-file-for-fake-video-capture): the photo letterboxed to 640×480, drifting a few
// pixels per frame so the stream is alive. Pure Node (jpeg-js); no ffmpeg on these machines.
import { readFileSync, writeFileSync } from 'node:fs';
import jpeg from 'jpeg-js';

const WIDTH = 640;
const HEIGHT = 480;

/** RGBA photo → letterboxed RGB samples of WIDTH×HEIGHT, shifted `dx` pixels (bilinear-free: nearest is enough for a webcam). */
function letterbox(rgba: Uint8Array, w: number, h: number, dx: number): Uint8Array {
  const scale = Math.min(WIDTH / w, HEIGHT / h);
  const ox = (WIDTH - w * scale) / 2 + dx;
  const oy = (HEIGHT - h * scale) / 2;
  const out = new Uint8Array(WIDTH * HEIGHT * 3).fill(40);
  for (let y = 0; y < HEIGHT; y++) {
    const sy = Math.floor((y - oy) / scale);
    if (sy < 0 || sy >= h) continue;
    for (let x = 0; x < WIDTH; x++) {
      const sx = Math.floor((x - ox) / scale);
      if (sx < 0 || sx >= w) continue;
      const s = (sy * w + sx) * 4;
      const d = (y * WIDTH + x) * 3;
      out[d] = rgba[s]!;
      out[d + 1] = rgba[s + 1]!;
      out[d + 2] = rgba[s + 2]!;
    }
  }
  return out;
}

/** BT.601 full-range RGB → I420 planes (4:2:0, chroma averaged over 2×2). */
function toI420(rgb: Uint8Array): Buffer {
  const ySize = WIDTH * HEIGHT;
  const cSize = ySize / 4;
  const out = Buffer.alloc(ySize + 2 * cSize);
  for (let i = 0; i < ySize; i++) {
    const r = rgb[i * 3]!, g = rgb[i * 3 + 1]!, b = rgb[i * 3 + 2]!;
    out[i] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
  }
  for (let y = 0; y < HEIGHT / 2; y++) {
    for (let x = 0; x < WIDTH / 2; x++) {
      let r = 0, g = 0, b = 0;
      for (const [px, py] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
        const i = ((2 * y + py) * WIDTH + 2 * x + px) * 3;
        r += rgb[i]!; g += rgb[i + 1]!; b += rgb[i + 2]!;
      }
      r /= 4; g /= 4; b /= 4;
      const c = y * (WIDTH / 2) + x;
      out[ySize + c] = Math.max(0, Math.min(255, Math.round(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)));
      out[ySize + cSize + c] = Math.max(0, Math.min(255, Math.round(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)));
    }
  }
  return out;
}

/** Writes `frames` frames at 10 fps made from the JPEG at `photoPath` to `outPath`. */
export function writeFakeCameraClip(photoPath: string, outPath: string, frames = 20): void {
  const photo = jpeg.decode(readFileSync(photoPath), { useTArray: true, formatAsRGBA: true });
  const parts: Buffer[] = [Buffer.from(`YUV4MPEG2 W${WIDTH} H${HEIGHT} F10:1 Ip A1:1 C420jpeg\n`)];
  for (let f = 0; f < frames; f++) {
    const drift = Math.round(4 * Math.sin((2 * Math.PI * f) / frames));
    parts.push(Buffer.from('FRAME\n'), toI420(letterbox(photo.data, photo.width, photo.height, drift)));
  }
  writeFileSync(outPath, Buffer.concat(parts));
}
