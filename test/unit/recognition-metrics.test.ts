// Verification metrics and the similarity → confidence calibration (pure).
import { describe, expect, it } from 'vitest';
import { CALIBRATION, cosine, similarityToConfidence } from '../../src/service/calibration.ts';
import { bestAccuracy, rocAuc, tarAt, thresholdAtFar } from '../../tools/eval/verification-metrics.ts';

const pairs = (genuine: number[], impostor: number[]) => [
  ...genuine.map((score) => ({ score, genuine: true })),
  ...impostor.map((score) => ({ score, genuine: false })),
];

describe('verification metrics', () => {
  it('AUC is 1 for perfect separation, 0.5 for identical scores, and counts failures as lowest', () => {
    expect(rocAuc(pairs([0.9, 0.8], [0.1, 0.2]))).toBe(1);
    expect(rocAuc(pairs([0.5, 0.5], [0.5, 0.5]))).toBe(0.5);
    expect(rocAuc(pairs([0.9, -Infinity], [0.1, 0.2]))).toBe(0.5);
  });

  it('threshold at FAR admits at most that share of impostors', () => {
    const impostors = Array.from({ length: 1000 }, (_, i) => i / 1000);
    const p = pairs([0.9995, 0.9985, 0.5], impostors);
    const t = thresholdAtFar(p, 0.001);
    expect(p.filter((x) => !x.genuine && x.score >= t)).toHaveLength(1);
    expect(tarAt(p, t)).toBeCloseTo(2 / 3);
  });

  it('best accuracy picks the separating threshold', () => {
    expect(bestAccuracy(pairs([0.9, 0.8], [0.1, 0.85])).accuracy).toBe(0.75);
    expect(bestAccuracy(pairs([0.9, 0.8], [0.1, 0.2])).accuracy).toBe(1);
  });
});

describe('calibration', () => {
  it('is monotone, 0..1, and 0.60 at the fitted FAR-0.1% similarity', () => {
    let last = -1;
    for (let s = -1; s <= 1; s += 0.001) {
      const c = similarityToConfidence(s);
      expect(c).toBeGreaterThanOrEqual(last);
      expect(c).toBeGreaterThanOrEqual(0);
      expect(c).toBeLessThanOrEqual(1);
      last = c;
    }
    const anchor = CALIBRATION.find((a) => a.confidence === 0.6)!;
    expect(similarityToConfidence(anchor.similarity)).toBeCloseTo(0.6, 9);
    expect(similarityToConfidence(-Infinity)).toBe(0);
  });

  it('cosine', () => {
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [2, 2])).toBeCloseTo(1);
  });
});
