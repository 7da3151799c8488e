// The detector passes' canvases are reused across pass sizes (src/worker/crop-renderer.ts): what a
// pass reads back must not depend on what was drawn into its canvas before, or on which canvas it got.
import { describe, expect, it } from 'vitest';
import { CropRenderer } from '../../src/worker/crop-renderer.ts';

/** A 300×200 test card: a gradient with a red square, so any misplaced or stale pixel shows. */
async function testCard(): Promise<ImageBitmap> {
  const canvas = new OffscreenCanvas(300, 200);
  const ctx = canvas.getContext('2d')!;
  const gradient = ctx.createLinearGradient(0, 0, 300, 200);
  gradient.addColorStop(0, '#123456');
  gradient.addColorStop(1, '#fedcba');
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, 300, 200);
  ctx.fillStyle = '#f00';
  ctx.fillRect(40, 30, 60, 60);
  return createImageBitmap(canvas);
}

const PASSES = [
  { scale: 0.5, width: 160, height: 112 },
  { scale: 1.2, width: 368, height: 240 },
  { scale: 0.25, width: 80, height: 64 },
  { scale: 4.5, width: 1360, height: 912 },
  { scale: 0.2, width: 61, height: 43 },
];

describe('CropRenderer.renderScaled', () => {
  it('gives each pass the pixels a fresh canvas gives, after larger and smaller passes', async () => {
    const card = await testCard();
    const reused = new CropRenderer();
    for (const pass of [...PASSES, ...PASSES]) {
      const fresh = new CropRenderer().renderScaled(card, pass.scale, pass.width, pass.height);
      const again = reused.renderScaled(card, pass.scale, pass.width, pass.height);
      expect(again.length).toBe(pass.width * pass.height * 4);
      expect(again.findIndex((v, i) => v !== fresh[i])).toBe(-1);
    }
  });

  it('fills the frame beyond the scaled image with black', async () => {
    const card = await testCard();
    const renderer = new CropRenderer();
    renderer.renderScaled(card, 1.2, 368, 240); // leaves the card's pixels all over the canvas
    const { width, height } = PASSES[0]!;
    const pixels = renderer.renderScaled(card, 0.5, width, height); // the card covers 150×100
    const at = (x: number, y: number) => [...pixels.subarray((y * width + x) * 4, (y * width + x) * 4 + 4)];
    expect(at(155, 50)).toEqual([0, 0, 0, 255]);
    expect(at(50, 105)).toEqual([0, 0, 0, 255]);
    expect(at(35, 30)).toEqual([255, 0, 0, 255]); // inside the red square at half scale
  });
});
