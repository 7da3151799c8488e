// The live detector schedule's plan (pure): the upright search of /detect split into runs that
// a live stream spreads over frames, one per frame.
import { describe, expect, it } from 'vitest';
import { DETECTORS } from '../../src/vision/detectors.ts';
import { planFramePasses } from '../../src/vision/tiling.ts';
import { uprightDetectorSteps } from '../../src/worker/face-detector.ts';
import { LiveSessionOptionsSchema } from '../../src/live/options.ts';

describe('uprightDetectorSteps', () => {
  const spec = DETECTORS['blazeface-front'];

  it('is the whole frame as one view, then the same whole-frame passes /detect runs', () => {
    const minFace = 20;
    const steps = uprightDetectorSteps(1280, 720, { detector: 'blazeface-front', minFace });
    expect(steps[0]).toEqual({ view: { cx: 640, cy: 360, size: 1280, angle: 0 } });
    const passes = planFramePasses(1280, 720, { minFace, detectorMinFraction: spec.minFaceFraction, nominal: 128, stride: 16 });
    expect(passes.length).toBeGreaterThan(1);
    expect(steps.slice(1)).toEqual(passes.map((pass) => ({ pass })));
  });

  it("live's default smallest face at 640×480 takes two runs, the finest showing it at the detector's smallest size or larger", () => {
    const minFace = LiveSessionOptionsSchema.parse({}).minFaceScale * 480;
    const steps = uprightDetectorSteps(640, 480, { detector: 'blazeface-front', minFace });
    expect(steps).toHaveLength(2);
    const pass = 'pass' in steps[1]! ? steps[1].pass : undefined;
    expect(pass).toBeDefined();
    expect(pass!.width * pass!.height).toBeLessThanOrEqual(256 * 192);
    expect(minFace * pass!.scale).toBeGreaterThanOrEqual(spec.minFaceFraction * 128 - 1e-9);
  });

  it('refuses a detector that cannot search whole frames', () => {
    expect(() => uprightDetectorSteps(640, 480, { detector: 'blazeface-back', minFace: 30 })).toThrow(/whole frames/);
  });
});
