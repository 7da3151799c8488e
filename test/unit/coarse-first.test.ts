// /detect's coarse-to-fine schedule (searchCoarseFirst): which detector passes run, in what
// rounds, and where their candidates land, given what the coarser runs found.
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/vision/detections.ts';
import { DETECTORS } from '../../src/vision/detectors.ts';
import { searchCoarseFirst, smallestFaceOf, uprightDetectorSteps, type DetectorStep } from '../../src/worker/face-detector.ts';

const spec = DETECTORS['blazeface-front'];
const smallest = smallestFaceOf(spec, spec.minFaceFraction);
// a 1200×1600 portrait searched down to 28 px: the whole frame, then passes finest first
const steps = uprightDetectorSteps(1200, 1600, { detector: 'blazeface-front', minFace: 28 });
const face = (height: number, x = 10, y = 10, score = 0.9): Candidate => ({ score, box: { x, y, width: height, height }, keypoints: [], angle: 0 });

/** runAll that answers from `answer` (by step) and records each round's steps */
function recorder(answer: (step: DetectorStep) => Candidate[]) {
  const rounds: DetectorStep[][] = [];
  const runAll = async (round: DetectorStep[]) => {
    rounds.push(round);
    return round.map(answer);
  };
  return { rounds, runAll };
}

describe('searchCoarseFirst', () => {
  it('plans at least three passes here, the finest for 28-px faces', () => {
    expect(steps.length).toBeGreaterThanOrEqual(4);
    expect(smallest(steps[1]!)).toBeCloseTo(28, 6);
    expect(smallest(steps[2]!)).toBeCloseTo(56, 6);
  });

  it('without a ratio runs every step in one round', async () => {
    const { rounds, runAll } = recorder(() => [face(400)]);
    const found = await searchCoarseFirst(steps, [], runAll, smallest, undefined);
    expect(rounds).toEqual([steps]);
    expect(found).toHaveLength(steps.length);
  });

  it('leaves out the passes whose faces are all over 8× smaller than a 400-px face, keeping the steps order', async () => {
    const whole = steps[0]!;
    const { rounds, runAll } = recorder((step) => (step === whole ? [face(400)] : []));
    const found = await searchCoarseFirst(steps, [], runAll, smallest, 8);
    const ran = rounds.flat();
    // 28 × 8 = 224 < 400 is left out; 56 × 8 = 448 ≥ 400 runs
    expect(ran).not.toContain(steps[1]);
    expect(ran).toContain(steps[2]);
    expect(rounds[0]).toEqual([whole, steps.at(-1)]);
    expect(found).toHaveLength(steps.length);
    expect(found[0]).toEqual([face(400)]);
    expect(found[1]).toEqual([]);
  });

  it('runs every pass, coarse to fine, when nothing is found', async () => {
    const { rounds, runAll } = recorder(() => []);
    await searchCoarseFirst(steps, [], runAll, smallest, 8);
    expect(rounds.flat()).toHaveLength(steps.length);
    expect(rounds.slice(1).map((r) => r[0])).toEqual(steps.slice(1, -1).reverse());
  });

  it('runs the finest pass when a finer pass finds a face within reach of it', async () => {
    // the whole frame's 400-px face lets the 56-px pass run (448 ≥ 400), which finds a 150-px face:
    // 28 × 8 = 224 ≥ 150, so the 28-px pass runs too
    const { rounds, runAll } = recorder((step) => (step === steps[0] ? [face(400)] : step === steps[2] ? [face(150, 700, 900)] : []));
    const found = await searchCoarseFirst(steps, [], runAll, smallest, 8);
    expect(rounds.flat()).toContain(steps[1]);
    expect(found[2]).toEqual([face(150, 700, 900)]);
  });

  it('takes the faces found as the answer merges them: a weak box on part of a larger face is that face', async () => {
    // the 56-px pass finds the 400-px face again and a 0.61 box on its lower half (150 px, inside
    // it): merged, the smallest face stays ~400 px and the 28-px pass stays out
    const { rounds, runAll } = recorder((step) => (step === steps[0] ? [face(400)] : step === steps[2] ? [face(410, 5, 5), face(150, 150, 200, 0.61)] : []));
    const found = await searchCoarseFirst(steps, [], runAll, smallest, 8);
    expect(rounds.flat()).toContain(steps[2]);
    expect(rounds.flat()).not.toContain(steps[1]);
    // what the pass found is still returned whole (the answer's own merge comes later)
    expect(found[2]).toHaveLength(2);
  });

  it('runs the tiled steps in the first round and returns them after the upright ones', async () => {
    const tile: DetectorStep = { view: { cx: 600, cy: 800, size: 1600, angle: Math.PI / 3 } };
    const { rounds, runAll } = recorder((step) => (step === tile ? [face(30)] : []));
    const found = await searchCoarseFirst(steps, [tile], runAll, smallest, 8);
    expect(rounds[0]).toContain(tile);
    expect(found.at(-1)).toEqual([face(30)]);
    // a 30-px face found by the tile keeps every finer pass in
    expect(rounds.flat()).toHaveLength(steps.length + 1);
  });

  describe('a weak box (under CONFIRM_BELOW) beside a large face', () => {
    const whole = steps[0]!;
    const weak = face(30, 900, 1400, 0.6);
    const answer = (step: DetectorStep) => (step === whole ? [face(400), weak] : []);
    const asked: Candidate[][] = [];
    const judge = (isFace: boolean) => async (faces: readonly Candidate[]) => {
      asked.push([...faces]);
      return faces.map(() => isFace);
    };

    it('opens the finest pass only if the check takes it for a face, asked once and only about it', async () => {
      asked.length = 0;
      const rejected = recorder(answer);
      await searchCoarseFirst(steps, [], rejected.runAll, smallest, 8, judge(false));
      expect(rejected.rounds.flat()).not.toContain(steps[1]);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.map((c) => c.box.height)).toEqual([30]);

      const accepted = recorder(answer);
      await searchCoarseFirst(steps, [], accepted.runAll, smallest, 8, judge(true));
      expect(accepted.rounds.flat()).toContain(steps[1]);
      // without a check it counts as found
      const unchecked = recorder(answer);
      await searchCoarseFirst(steps, [], unchecked.runAll, smallest, 8);
      expect(unchecked.rounds.flat()).toContain(steps[1]);
    });

    it('is not asked about when weak boxes are all that was found: every pass runs as when nothing is', async () => {
      asked.length = 0;
      const only = recorder((step) => (step === whole ? [weak] : []));
      await searchCoarseFirst(steps, [], only.runAll, smallest, 8, judge(false));
      expect(asked).toEqual([]);
      expect(only.rounds.flat()).toHaveLength(steps.length);
    });
  });
});
