// Pure vision code: geometry, anchors, candidate decoding and NMS, tiling, selector, mesh names.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anchorsForInput, generateAnchors } from '../../src/vision/anchors.ts';
import { decodeCandidates, weightedNms, withoutDuplicateFaces, type Candidate } from '../../src/vision/detections.ts';
import { NAMED_LANDMARKS } from '../../src/vision/face-mesh.ts';
import { applyAffine, clipBox, cropToImage, imageToCrop, iou, subView, type View } from '../../src/vision/geometry.ts';
import { faceQuality, laplacianVariance } from '../../src/vision/quality.ts';
import { parseSelector } from '../../src/vision/selector.ts';
import { planFramePasses, planViews, pyramidSizes, splitPass } from '../../src/vision/tiling.ts';
import { EngineError } from '../../src/errors.ts';
import { estimateAge, estimateMale, faceresAge } from '../../src/vision/attributes.ts';
import { parseVariant } from '../../tools/eval/attributes-variants.ts';
import { modelsOfRequest } from '../../src/worker/image-analysis.ts';

const close = (a: number, b: number, eps = 1e-9) => Math.abs(a - b) < eps;

describe('geometry', () => {
  it('a view maps its centre to the crop centre and back, at any angle', () => {
    for (const angle of [0, 0.5, -1.2, Math.PI / 2]) {
      const view: View = { cx: 300, cy: 200, size: 100, angle };
      const m = imageToCrop(view, 128);
      const c = applyAffine(m, { x: 300, y: 200 });
      expect(close(c.x, 64) && close(c.y, 64)).toBe(true);
      const p = { x: 317, y: 188 };
      const back = applyAffine(cropToImage(view, 128), applyAffine(m, p));
      expect(close(back.x, p.x, 1e-6) && close(back.y, p.y, 1e-6)).toBe(true);
    }
  });

  it('an upright view scales by outSize/size', () => {
    const m = imageToCrop({ cx: 50, cy: 50, size: 100, angle: 0 }, 200);
    expect(applyAffine(m, { x: 0, y: 0 })).toEqual({ x: 0, y: 0 });
    expect(applyAffine(m, { x: 100, y: 100 })).toEqual({ x: 200, y: 200 });
  });

  it('a view rotated clockwise by 90° maps the image point right of centre to the crop top', () => {
    // the view's "up" is rotated to point right on screen, so a point right of the centre is at the crop's top
    const m = imageToCrop({ cx: 0, cy: 0, size: 2, angle: Math.PI / 2 }, 2);
    const p = applyAffine(m, { x: 1, y: 0 });
    expect(close(p.x, 1, 1e-9) && close(p.y, 0, 1e-9)).toBe(true);
  });

  it('subView offsets within the rotated frame', () => {
    const v = subView({ cx: 100, cy: 100, size: 100, angle: 0 }, 0.5, 0.25, 0.5);
    expect(v).toEqual({ cx: 100, cy: 75, size: 50, angle: 0 });
  });

  it('iou', () => {
    expect(iou({ x: 0, y: 0, width: 10, height: 10 }, { x: 5, y: 0, width: 10, height: 10 })).toBeCloseTo(50 / 150);
    expect(iou({ x: 0, y: 0, width: 10, height: 10 }, { x: 20, y: 0, width: 10, height: 10 })).toBe(0);
  });
});

describe('anchors and decoding', () => {
  it('BlazeFace front anchors: 512 at stride 8 then 384 at stride 16', () => {
    const a = generateAnchors({ inputSize: 128, layers: [{ stride: 8, anchorsPerCell: 2 }, { stride: 16, anchorsPerCell: 6 }] });
    expect(a).toHaveLength(896);
    expect(a[0]).toEqual({ x: 4, y: 4 });
    expect(a[1]).toEqual({ x: 4, y: 4 });
    expect(a[512]).toEqual({ x: 8, y: 8 });
  });

  it('decodes boxes and keypoints relative to anchors and thresholds on score', () => {
    const anchors = [{ x: 10, y: 20 }, { x: 30, y: 40 }];
    const scores = Float32Array.from([2, -2]); // sigmoid 0.88 and 0.12
    const regressors = new Float32Array(32);
    regressors.set([1, 2, 8, 6, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5], 0);
    const found = decodeCandidates(scores, regressors, anchors, 0.5);
    expect(found).toHaveLength(1);
    expect(found[0]!.box).toEqual({ x: 11 - 4, y: 22 - 3, width: 8, height: 6 });
    expect(found[0]!.keypoints[1]).toEqual({ x: 11, y: 21 });
    expect(found[0]!.score).toBeCloseTo(1 / (1 + Math.exp(-2)));
  });

  it('weighted NMS merges overlapping candidates and keeps separate faces', () => {
    const c = (x: number, score: number): Candidate => ({
      box: { x, y: 0, width: 10, height: 10 },
      score,
      keypoints: Array.from({ length: 6 }, () => ({ x, y: 0 })),
    });
    const kept = weightedNms([c(0, 0.9), c(1, 0.8), c(50, 0.7)]);
    expect(kept).toHaveLength(2);
    expect(kept[0]!.score).toBe(0.9);
    expect(kept[0]!.box.x).toBeCloseTo((0 * 0.9 + 1 * 0.8) / 1.7);
    // a small box inside a big one is the same face
    const inside: Candidate = { box: { x: 2, y: 2, width: 5, height: 5 }, score: 0.6, keypoints: c(2, 0).keypoints };
    expect(weightedNms([c(0, 0.9), inside])).toHaveLength(1);
  });
});

describe('tiling', () => {
  it('only the whole frame when faces that small are visible in it', () => {
    expect(pyramidSizes(640, 480, { minFace: 200, detectorMinFraction: 0.1, overlap: 0.3 })).toEqual([640]);
    expect(planViews(640, 480, { minFace: 200, detectorMinFraction: 0.1, overlap: 0.3 })).toHaveLength(1);
  });

  it('finer levels cover the whole image with overlapping tiles', () => {
    const o = { minFace: 28, detectorMinFraction: 0.1, overlap: 0.3 };
    const sizes = pyramidSizes(1000, 600, o);
    expect(sizes[0]).toBe(1000);
    expect(sizes[sizes.length - 1]! * o.detectorMinFraction).toBeLessThanOrEqual(o.minFace * 1.1);
    const views = planViews(1000, 600, o);
    for (const size of sizes.slice(1)) {
      const level = views.filter((v) => v.size === size);
      // every image point is inside some tile, with margin for a face of overlap*size
      for (const x of [0, 250, 500, 999]) {
        for (const y of [0, 300, 599]) {
          expect(level.some((v) => Math.abs(v.cx - x) <= size / 2 && Math.abs(v.cy - y) <= size / 2)).toBe(true);
        }
      }
    }
  });

  it('ROLL searches each rotation', () => {
    const views = planViews(640, 480, { minFace: 200, detectorMinFraction: 0.1, overlap: 0.3, angles: [0, 1, -1] });
    expect(views.map((v) => v.angle)).toEqual([0, 1, -1]);
  });
});

describe('whole-frame passes', () => {
  const o = { minFace: 28, nominal: 128, detectorMinFraction: 0.1, stride: 16 };

  it('a face already 10% of the whole frame needs no pass beyond the nominal view', () => {
    expect(planFramePasses(640, 480, { ...o, minFace: 64 })).toEqual([]);
  });

  it('a wider whole-view margin drops the pass next to the whole view: 640×480 down to 28-px faces', () => {
    expect(planFramePasses(640, 480, o).map((p) => [p.width, p.height])).toEqual([[304, 224], [160, 112]]);
    expect(planFramePasses(640, 480, { ...o, wholeViewMargin: 1.25 }).map((p) => [p.width, p.height])).toEqual([[304, 224]]);
    for (const [w, h] of [[1600, 1200], [910, 1137], [1434, 2333]] as const) {
      const passes = planFramePasses(w, h, { ...o, wholeViewMargin: 1.25 });
      expect(passes.length).toBeGreaterThan(0);
      for (const p of passes) expect(p.scale).toBeGreaterThan((128 / Math.max(w, h)) * 1.25);
    }
  });

  it('the finest pass makes the smallest face the detector\'s smallest, coarser passes 2x apart, sides on the stride', () => {
    const passes = planFramePasses(2048, 922, o);
    expect(passes[0]!.scale).toBeCloseTo(12.8 / 28, 6);
    for (const [i, p] of passes.entries()) {
      expect(p.width % 16).toBe(0);
      expect(p.height % 16).toBe(0);
      expect(p.width).toBeGreaterThanOrEqual(2048 * p.scale);
      expect(p.height).toBeGreaterThanOrEqual(922 * p.scale);
      if (i > 0) expect(passes[i - 1]!.scale / p.scale).toBeCloseTo(2, 6);
    }
    // the coarsest pass still reaches below the smallest face the nominal whole-frame view finds
    const coarsest = passes.at(-1)!;
    const wholeSmallest = 0.1 * 2048;
    expect(12.8 / coarsest.scale).toBeLessThan(wholeSmallest);
  });

  it('anchors for a wider input keep the detector order: rows, columns, anchors per cell', () => {
    const layers = [{ stride: 8, anchorsPerCell: 2 }, { stride: 16, anchorsPerCell: 6 }];
    const a = anchorsForInput(layers, 256, 128);
    expect(a).toHaveLength(32 * 16 * 2 + 16 * 8 * 6);
    expect(a[0]).toEqual({ x: 4, y: 4 });
    expect(a[2]).toEqual({ x: 12, y: 4 });
    expect(a[64]).toEqual({ x: 4, y: 12 }); // second row after 32 cells x 2
    expect(anchorsForInput(layers, 128, 128)).toEqual(generateAnchors({ inputSize: 128, layers }));
  });
});

describe('a pass in strips', () => {
  const pass = { scale: 0.457, width: 480, height: 592 };
  it('two strips cover every row, overlap by at least the overlap, and keep the stride', () => {
    const strips = splitPass(pass, 2, 64, 16);
    expect(strips).toHaveLength(2);
    for (const s of strips) {
      expect(s.height % 16).toBe(0);
      expect(s.width).toBe(480);
    }
    const [a, b] = strips as [typeof strips[0] & { strip: { top: number } }, typeof strips[0] & { strip: { top: number } }];
    expect(a.strip!.top).toBe(0);
    expect(b.strip!.top + b.height).toBe(592);
    expect(a.strip!.top + a.height - b.strip!.top).toBeGreaterThanOrEqual(64);
    expect([a.strip!.cutAbove, a.strip!.cutBelow, b.strip!.cutAbove, b.strip!.cutBelow]).toEqual([false, true, true, false]);
  });
  it('a padded pass, one part, or a pass no taller than a strip stays whole', () => {
    expect(splitPass({ ...pass, pad: 32 }, 2, 64, 16)).toEqual([{ ...pass, pad: 32 }]);
    expect(splitPass(pass, 1, 64, 16)).toEqual([pass]);
    expect(splitPass({ ...pass, height: 96 }, 2, 64, 16)).toEqual([{ ...pass, height: 96 }]);
  });
});

describe('selector', () => {
  it('parses comma-separated values case-insensitively', () => {
    expect(parseSelector(undefined)).toEqual({ roll: false, full: false, liveness: false });
    expect(parseSelector('FRONTAL')).toEqual({ roll: false, full: false, liveness: false });
    expect(parseSelector('ROLL, liveness')).toEqual({ roll: true, full: false, liveness: true });
    expect(parseSelector('FULL,FACE,EYES,SETPOSE')).toEqual({ roll: false, full: true, liveness: false });
  });

  it('an unknown value is error 1003 naming it', () => {
    try {
      parseSelector('FRONTAL,SIDEWAYS');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(EngineError);
      expect((e as EngineError).failure.code).toBe(1003);
      expect((e as EngineError).message).toContain('SIDEWAYS');
    }
  });
});

describe('named landmarks', () => {
  it('are exactly the 49 names of facts.md, in order', () => {
    const facts = readFileSync(new URL('../../../shared/spec/facts.md', import.meta.url), 'utf8');
    const block = facts.slice(facts.indexOf('Landmark names, 49'), facts.indexOf('- Not published'));
    const names = block.slice(block.indexOf(':') + 1).split(/[\s,]+/).filter((w) => /^[A-Za-z]+$/.test(w));
    expect(names).toHaveLength(49);
    expect(NAMED_LANDMARKS.map(([n]) => n)).toEqual(names);
    for (const [, index] of NAMED_LANDMARKS) expect(index).toBeGreaterThanOrEqual(0);
    for (const [, index] of NAMED_LANDMARKS) expect(index).toBeLessThan(468);
  });
});

describe('quality', () => {
  it('is higher for sharp, large, frontal faces', () => {
    const good = faceQuality({ sharpness: 500, eyeDistance: 80, yaw: 0, pitch: 0, score: 0.95 });
    const poor = faceQuality({ sharpness: 20, eyeDistance: 12, yaw: 40, pitch: 10, score: 0.6 });
    expect(good).toBeGreaterThan(0.9);
    expect(poor).toBeLessThan(0.3);
    expect(good).toBeLessThanOrEqual(1);
  });

  it('laplacian variance is zero on a flat image and large on a checkerboard', () => {
    expect(laplacianVariance(new Array(64).fill(100), 8, 8)).toBe(0);
    const board = Array.from({ length: 64 }, (_, i) => (((i % 8) + Math.floor(i / 8)) % 2 ? 255 : 0));
    expect(laplacianVariance(board, 8, 8)).toBeGreaterThan(1000);
  });
});

describe('alignment', () => {
  it('similarityView recovers a known similarity transform', async () => {
    const { similarityView, ARCFACE_112 } = await import('../../src/vision/align.ts');
    const view: View = { cx: 400, cy: 300, size: 150, angle: 0.3 };
    const toImage = cropToImage(view, 112);
    const imagePoints = ARCFACE_112.map((p) => applyAffine(toImage, p));
    const fitted = similarityView(imagePoints, ARCFACE_112, 112);
    expect(fitted.cx).toBeCloseTo(400, 6);
    expect(fitted.cy).toBeCloseTo(300, 6);
    expect(fitted.size).toBeCloseTo(150, 6);
    expect(fitted.angle).toBeCloseTo(0.3, 9);
  });

  it('dlibView follows face-api for an upright face and turns with the eyes', async () => {
    const { dlibView } = await import('../../src/vision/align.ts');
    const v = dlibView({ x: 130, y: 100 }, { x: 70, y: 100 }, { x: 100, y: 160 });
    const eyeToMouth = Math.hypot(30, 60);
    expect(v.size).toBeCloseTo(eyeToMouth / 0.45);
    expect(v.angle).toBe(0);
    // face-api's box top-left = ref − (0.5, 0.43)·size, so its centre = ref + (0, 0.07)·size
    expect(v.cx).toBeCloseTo(100);
    expect(v.cy).toBeCloseTo((100 + 100 + 160) / 3 + 0.07 * v.size);
  });

  it('flipHorizontal mirrors columns and is its own inverse', async () => {
    const { flipHorizontal } = await import('../../src/vision/align.ts');
    const t = Float32Array.from([1, 2, 3, 4]); // 2x2, one channel
    expect(Array.from(flipHorizontal(t, 2, 1))).toEqual([2, 1, 4, 3]);
    expect(Array.from(flipHorizontal(flipHorizontal(t, 2, 1), 2, 1))).toEqual([1, 2, 3, 4]);
  });
});

describe('demographics from the attribute models', () => {
  // GEAR's age bins are [15, 23, 28, 35.5, 45.5, 55.5, 65]
  const gearAt45 = [0, 0, 0, 0, 1, 0, 0];
  const faceresAt31 = Array.from({ length: 100 }, (_, i) => (i === 31 ? 1 : 0));

  it('age is GEAR alone when no second model ran, else the mean of both', () => {
    expect(estimateAge(gearAt45)).toBeCloseTo(45.5);
    expect(faceresAge(faceresAt31)).toBeCloseTo(31);
    expect(estimateAge(gearAt45, faceresAge(faceresAt31))).toBeCloseTo((45.5 + 31) / 2);
  });

  it('age can be the second model\'s alone (the shipped setting), and falls back to GEAR\'s without one', () => {
    expect(estimateAge(gearAt45, 31, true)).toBeCloseTo(31);
    expect(estimateAge(gearAt45, undefined, true)).toBeCloseTo(45.5);
  });

  it('male probability is the second model\'s when one ran, else GEAR\'s', () => {
    expect(estimateMale([0.8, 0.2])).toBeCloseTo(0.8);
    expect(estimateMale([0.8, 0.2], 0.2)).toBeCloseTo(0.2);
  });

  it('eval:attributes variants name GEAR\'s side and, optionally, the second age/gender model', () => {
    expect(parseVariant('198')).toEqual({ gearInputSize: 198, ageGender: 'none', faceresInputSize: 224, secondModelAge: false });
    expect(parseVariant('198+faceres')).toEqual({ gearInputSize: 198, ageGender: 'faceres', faceresInputSize: 224, secondModelAge: false });
    expect(parseVariant('160+faceres192')).toEqual({ gearInputSize: 160, ageGender: 'faceres', faceresInputSize: 192, secondModelAge: false });
    expect(parseVariant('198+agegender')).toEqual({ gearInputSize: 198, ageGender: 'faceapi-age-gender', faceresInputSize: 224, secondModelAge: false });
    expect(parseVariant('176t+agegender')).toEqual({ gearInputSize: 176, gearKeepScale: true, ageGender: 'faceapi-age-gender', faceresInputSize: 224, secondModelAge: false });
    expect(parseVariant('176+agegender:age')).toEqual({ gearInputSize: 176, ageGender: 'faceapi-age-gender', faceresInputSize: 224, secondModelAge: true });
    expect(() => parseVariant('faceres')).toThrow(/GEAR crop side/);
    expect(() => parseVariant('198:age')).toThrow(/GEAR crop side/);
  });
});

describe('the models a request loads', () => {
  const base = { minHeadScale: 0.015, selector: parseSelector(undefined), demographics: false, emotion: false, keepMesh: false };

  it('detection and mesh always; demographics add GEAR and, unless turned off, a second age/gender model; liveness its two models', () => {
    expect(modelsOfRequest(base)).toEqual(['blazeface-front', 'facemesh']);
    expect(modelsOfRequest({ ...base, demographics: true })).toEqual(['blazeface-front', 'facemesh', 'gear', 'faceapi-age-gender']);
    expect(modelsOfRequest({ ...base, demographics: true, demographicsSettings: { ageGender: 'faceres' } })).toEqual(['blazeface-front', 'facemesh', 'gear', 'faceres']);
    expect(modelsOfRequest({ ...base, demographics: true, demographicsSettings: { ageGender: 'none' } })).toEqual(['blazeface-front', 'facemesh', 'gear']);
    expect(modelsOfRequest({ ...base, demographics: true, demographicsSettings: { ageGender: 'faceapi-age-gender' } })).toEqual(['blazeface-front', 'facemesh', 'gear', 'faceapi-age-gender']);
    expect(modelsOfRequest({ ...base, selector: parseSelector('LIVENESS') })).toEqual(['blazeface-front', 'facemesh', 'antispoof', 'liveness']);
  });
});

describe('one face, one box', () => {
  const face = (x: number, width: number, score: number) => ({ box: { x, y: 0, width, height: 100 }, score });
  const dedupe = (faces: (ReturnType<typeof face> | undefined)[]) => withoutDuplicateFaces(faces, (f) => f.box, (f) => f.score);

  it('keeps the best scored of faces whose boxes overlap or nest, in their places', () => {
    const nested = face(30, 60, 0.9);
    const whole = face(0, 100, 0.8);
    const apart = face(300, 100, 0.7);
    expect(dedupe([whole, nested, undefined, apart])).toEqual([undefined, nested, undefined, apart]);
  });

  it('keeps faces that only touch', () => {
    expect(dedupe([face(0, 100, 0.9), face(80, 100, 0.8)]).filter(Boolean)).toHaveLength(2);
  });

  it('clips a box to the frame', () => {
    expect(clipBox({ x: -20, y: 10, width: 100, height: 200 }, 60, 150)).toEqual({ x: 0, y: 10, width: 60, height: 140 });
    expect(clipBox({ x: 70, y: 0, width: 10, height: 10 }, 60, 150).width).toBe(0);
  });
});
