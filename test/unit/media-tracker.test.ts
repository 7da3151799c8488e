// The person tracker (pure): ids stay with people through motion, short occlusions and
// absences, and do not jump to someone else at a camera cut.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosine, FaceTracker, type Observation } from '../../src/media/tracker.ts';
import type { Box } from '../../src/vision/geometry.ts';
import { seededRandom as rng } from './helpers/seeded-random.ts';

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const gaussian = (r: () => number) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());

/**
 * Face-api-like embeddings: a component every face shares plus a personal one, so that two
 * people score ≈ 0.84 (the dev set's impostor median) and the same person ≈ 0.97 frame to frame.
 */
function people(n: number, seed = 1) {
  const r = rng(seed);
  const random = () => unit(Array.from({ length: 128 }, () => gaussian(r)));
  const common = random();
  const identities = Array.from({ length: n }, () => {
    const own = random();
    return unit(common.map((c, i) => Math.sqrt(0.84) * c + Math.sqrt(0.16) * own[i]!));
  });
  /** one frame's embedding of person i */
  return (i: number, noise = 0.015) => unit(identities[i]!.map((v) => v + noise * gaussian(r)));
}

const box = (x: number, y: number, size = 80): Box => ({ x, y, width: size, height: size });

describe('FaceTracker', () => {
  it('the simulated embeddings look like the real ones', () => {
    const e = people(2);
    expect(cosine(e(0), e(1))).toBeGreaterThan(0.75);
    expect(cosine(e(0), e(1))).toBeLessThan(0.9);
    expect(cosine(e(0), e(0))).toBeGreaterThan(0.95);
  });

  it('one face panning and zooming across the frame keeps one id', () => {
    const e = people(1);
    const t = new FaceTracker();
    const ids = new Set<string>();
    for (let k = 0; k < 50; k++) {
      const size = 100 + k * 3;
      const [id] = t.update(k * 200, [{ box: box(200 + 120 * Math.sin(k / 4), 150 - k, size), embedding: e(0) }]);
      ids.add(id!);
    }
    expect([...ids]).toEqual(['1']);
  });

  it('without embeddings, overlap alone keeps a moving face', () => {
    const t = new FaceTracker();
    const ids = Array.from({ length: 20 }, (_, k) => t.update(k * 200, [{ box: box(100 + 15 * k, 100) }])[0]);
    expect(new Set(ids).size).toBe(1);
  });

  it('constant motion is predicted: a fast face whose boxes barely touch frame to frame keeps its id', () => {
    const t = new FaceTracker();
    // 60 px per frame with an 80 px box: IoU between consecutive boxes is 0.14, below minIou;
    // the centres are 0.75 box sizes apart (near enough: up to 1), then the predicted box (last
    // box + last velocity) overlaps fully
    const ids = Array.from({ length: 10 }, (_, k) => t.update(k * 200, [{ box: box(50 + 60 * k, 100) }])[0]);
    expect(new Set(ids)).toEqual(new Set(['1']));
    // a face appearing over 2 box sizes away from where it was is someone else
    expect(t.update(2000, [{ box: box(50 + 60 * 10 + 120, 100) }])).toEqual(['2']);
  });

  it('two people side by side and passing each other keep their ids', () => {
    const e = people(2);
    const t = new FaceTracker();
    const seen: [string, string][] = [];
    for (let k = 0; k <= 20; k++) {
      const xa = 100 + 20 * k; // left → right
      const xb = 500 - 20 * k; // right → left; they overlap around k = 10
      const obs: Observation[] = [
        { box: box(xa, 100), embedding: e(0) },
        { box: box(xb, 104), embedding: e(1) },
      ];
      // the detector's order is not stable: shuffle every other frame
      const order = k % 2 ? [1, 0] : [0, 1];
      const ids = t.update(k * 200, order.map((i) => obs[i]!));
      const byPerson = order.map((_, j) => ids[order.indexOf(j)]!) as [string, string];
      seen.push(byPerson);
    }
    expect(new Set(seen.map((s) => s[0]))).toEqual(new Set(['1']));
    expect(new Set(seen.map((s) => s[1]))).toEqual(new Set(['2']));
  });

  it('a short occlusion (gone for 3 sampled frames) keeps the id', () => {
    const e = people(1);
    const t = new FaceTracker();
    const ids: string[] = [];
    for (let k = 0; k < 12; k++) {
      if (k >= 4 && k < 7) {
        expect(t.update(k * 200, [])).toEqual([]);
        continue;
      }
      ids.push(t.update(k * 200, [{ box: box(200 + 5 * k, 100), embedding: e(0) }])[0]!);
    }
    expect(new Set(ids)).toEqual(new Set(['1']));
  });

  it('a long absence and a return elsewhere: re-identified by appearance', () => {
    const e = people(2);
    const t = new FaceTracker();
    t.update(0, [{ box: box(100, 100), embedding: e(0) }, { box: box(400, 100), embedding: e(1) }]);
    t.update(200, [{ box: box(100, 100), embedding: e(0) }, { box: box(400, 100), embedding: e(1) }]);
    for (let k = 2; k < 30; k++) t.update(k * 200, []);
    // person 0 comes back where person 1 used to be, and vice versa
    const ids = t.update(6000, [{ box: box(400, 100), embedding: e(1, 0.01) }, { box: box(100, 300), embedding: e(0, 0.01) }]);
    expect(ids).toEqual(['2', '1']);
  });

  it('a camera cut that puts someone else where a face was starts a new person', () => {
    const e = people(2);
    const t = new FaceTracker();
    for (let k = 0; k < 5; k++) expect(t.update(k * 200, [{ box: box(200, 100), embedding: e(0) }])).toEqual(['1']);
    expect(t.update(1000, [{ box: box(205, 110), embedding: e(1) }])).toEqual(['2']);
    // and the first person coming back later is still "1"
    expect(t.update(1200, [{ box: box(500, 100), embedding: e(0, 0.01) }, { box: box(205, 110), embedding: e(1) }])).toEqual(['1', '2']);
  });

  it('faces that are not there give no ids; a new face gets the next id', () => {
    const t = new FaceTracker();
    expect(t.update(0, [])).toEqual([]);
    expect(t.update(200, [{ box: box(0, 0) }])).toEqual(['1']);
    expect(t.update(400, [{ box: box(0, 0) }, { box: box(300, 300) }])).toEqual(['1', '2']);
    expect(t.count).toBe(2);
  });

  it('never gives two faces of one frame the same id (property)', () => {
    const e = people(6, 7);
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.record({ x: fc.integer({ min: 0, max: 600 }), y: fc.integer({ min: 0, max: 400 }), who: fc.integer({ min: 0, max: 5 }) }), { maxLength: 5 }),
          { maxLength: 15 },
        ),
        (frames) => {
          const t = new FaceTracker();
          frames.forEach((faces, k) => {
            const ids = t.update(k * 200, faces.map((f) => ({ box: box(f.x, f.y), embedding: e(f.who) })));
            expect(ids).toHaveLength(faces.length);
            expect(new Set(ids).size).toBe(ids.length);
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('FaceTracker in live video (continues, cut)', () => {
  const box = (x: number, size = 80): Box => ({ x, y: 100, width: size, height: size });

  it('an observation that continues a track keeps its id even after a jump no cue would accept', () => {
    const t = new FaceTracker();
    const [a] = t.update(0, [{ box: box(100) }]);
    // a follower re-seeded from the detector far from its last box, and a stranger where it was
    const ids = t.update(40, [{ box: box(100) }, { box: box(400, 140), continues: a }]);
    expect(ids[1]).toBe(a);
    expect(ids[0]).not.toBe(a);
  });

  it('without the hint the same jump starts a new id', () => {
    const t = new FaceTracker();
    const [a] = t.update(0, [{ box: box(100) }]);
    expect(t.update(40, [{ box: box(400, 140) }])[0]).not.toBe(a);
  });

  it('a continues hint for an unknown or already claimed track falls back to the cues', () => {
    const t = new FaceTracker();
    const [a] = t.update(0, [{ box: box(100) }]);
    const ids = t.update(40, [{ box: box(102), continues: a }, { box: box(104), continues: a }, { box: box(300), continues: 'nope' }]);
    expect(ids[0]).toBe(a);
    expect(new Set(ids).size).toBe(3);
  });

  it('after a cut a face at a track’s old place is someone new, but appearance still re-identifies', () => {
    const person = people(2, 7);
    const t = new FaceTracker();
    const [a, b] = t.update(0, [{ box: box(100), embedding: person(0) }, { box: box(400) }]);
    t.cut();
    // same place, no embedding: new id (overlap no longer counts)
    const [c] = t.update(40, [{ box: box(400) }]);
    expect(c).not.toBe(b);
    // person 0 seen again anywhere: re-identified by appearance
    t.cut();
    expect(t.update(80, [{ box: box(250), embedding: person(0) }])[0]).toBe(a);
  });
});
