// Draws the photo with each face's box, eye centres and chin tip.
import type { DetectFace } from '../index.ts';

export async function drawFaces(canvas: HTMLCanvasElement, image: Blob, faces: DetectFace[]): Promise<void> {
  const bitmap = await createImageBitmap(image);
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(bitmap, 0, 0);
  const line = Math.max(2, Math.round(Math.max(bitmap.width, bitmap.height) / 400));
  ctx.lineWidth = line;
  ctx.font = `${line * 8}px system-ui, sans-serif`;
  for (const f of faces) {
    ctx.strokeStyle = '#3d63dd';
    ctx.strokeRect(f.topLeftX, f.topLeftY, f.width, f.height);
    ctx.fillStyle = '#3d63dd';
    ctx.fillText(String(f.face_id), f.topLeftX + line, f.topLeftY - line * 2);
    ctx.fillStyle = '#f5a623';
    for (const [x, y] of [[f.leftEyeCenterX, f.leftEyeCenterY], [f.rightEyeCenterX, f.rightEyeCenterY], [f.chinTipX, f.chinTipY]] as const) {
      ctx.beginPath();
      ctx.arc(x, y, line * 1.5, 0, Math.PI * 2);
      ctx.fill();
    }
  }
  bitmap.close();
}
