// Pure metrics of the emotion analysis (v2): emotion mapping, age group, gender, attention,
// blink, distance, dwell/glances, timestamps (docs/emotion.md).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ageGroup,
  attentionOf,
  ATTENTION,
  blinkOf,
  distanceOf,
  dwellOf,
  EMOTION_NAMES,
  emotionScore,
  formatTimestamp,
  genderOf,
  mediaEmotions,
  neutralOf,
  stepPresence,
  TIMESTAMP_PATTERN,
  type Presence,
  type SevenClassProbabilities,
} from '../../src/media/metrics.ts';

const probs = (p: Partial<SevenClassProbabilities>): SevenClassProbabilities => ({
  angry: 0, disgust: 0, fear: 0, happy: 0, sad: 0, surprise: 0, neutral: 0, ...p,
});

describe('emotions', () => {
  it('maps the seven classes to the six interface emotions in percent; neutral is the remainder', () => {
    const e = mediaEmotions(probs({ angry: 0.1, disgust: 0.05, fear: 0.05, happy: 0.4, sad: 0.1, surprise: 0.1, neutral: 0.2 }));
    expect(e).toEqual({ anger: 10, disgust: 5, fear: 5, joy: 40, sadness: 10, surprise: 10 });
    expect(neutralOf(e)).toBe(20);
    expect(Object.keys(e)).toEqual([...EMOTION_NAMES]);
  });

  it('renormalises probabilities that do not sum to 1 and ignores junk', () => {
    expect(mediaEmotions(probs({ happy: 2, neutral: 2 })).joy).toBe(50);
    expect(mediaEmotions(probs({ happy: NaN, sad: -1, neutral: 1 }))).toEqual({ anger: 0, disgust: 0, fear: 0, joy: 0, sadness: 0, surprise: 0 });
    expect(mediaEmotions(probs({}))).toEqual({ anger: 0, disgust: 0, fear: 0, joy: 0, sadness: 0, surprise: 0 });
  });

  it('every value is 0–100 and the six never exceed 100 (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: 0, max: 1, noNaN: true }), { minLength: 7, maxLength: 7 }), (v) => {
        const e = mediaEmotions(probs({ angry: v[0], disgust: v[1], fear: v[2], happy: v[3], sad: v[4], surprise: v[5], neutral: v[6] }));
        const sum = EMOTION_NAMES.reduce((s, n) => s + e[n], 0);
        for (const n of EMOTION_NAMES) {
          expect(e[n]).toBeGreaterThanOrEqual(0);
          expect(e[n]).toBeLessThanOrEqual(100);
        }
        expect(sum).toBeLessThanOrEqual(100.06); // six values rounded to 0.01
        expect(neutralOf(e)).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('emotion_score: joy positive; anger, disgust, fear, sadness negative; the rest (surprise, neutral) neutral', () => {
    expect(emotionScore({ anger: 10, disgust: 5, fear: 5, joy: 40, sadness: 10, surprise: 10 })).toEqual({ negative: 30, neutral: 30, positive: 40 });
    expect(emotionScore({ anger: 0, disgust: 0, fear: 0, joy: 0, sadness: 0, surprise: 0 })).toEqual({ negative: 0, neutral: 100, positive: 0 });
    const s = emotionScore({ anger: 60, disgust: 30, fear: 10, joy: 5, sadness: 0, surprise: 0 });
    expect(s.negative + s.neutral + s.positive).toBeCloseTo(100, 6);
    expect(s.neutral).toBeGreaterThanOrEqual(0);
  });
});

describe('demographics', () => {
  it('age groups: Child < 18 ≤ Young Adult < 35 ≤ Adult < 60 ≤ Senior', () => {
    expect([0, 17.9, 18, 34.9, 35, 59.9, 60, 99].map(ageGroup)).toEqual([
      'Child', 'Child', 'Young Adult', 'Young Adult', 'Adult', 'Adult', 'Senior', 'Senior',
    ]);
  });
  it('gender: Male at a male probability of 0.5 or more', () => {
    expect([0, 0.49, 0.5, 1].map(genderOf)).toEqual(['Female', 'Female', 'Male', 'Male']);
  });
});

describe('attention', () => {
  const cam = ATTENTION.pitchAtCameraDeg;
  it('is 100 facing the camera, 0 turned 45° or more, linear between', () => {
    expect(attentionOf(0, cam)).toBe(100);
    expect(attentionOf(10, cam)).toBe(100);
    expect(attentionOf(27.5, cam)).toBe(50);
    expect(attentionOf(-27.5, cam)).toBe(50);
    expect(attentionOf(0, cam + 27.5)).toBe(50);
    expect(attentionOf(45, cam)).toBe(0);
    expect(attentionOf(90, cam)).toBe(0);
    expect(attentionOf(NaN, 0)).toBe(0);
  });
  it('falls as the head turns further (property)', () => {
    fc.assert(
      fc.property(fc.float({ min: 0, max: 80, noNaN: true }), fc.float({ min: 0, max: 10, noNaN: true }), (a, d) => {
        expect(attentionOf(a + d, cam)).toBeLessThanOrEqual(attentionOf(a, cam));
        const v = attentionOf(a, cam + a / 2);
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(100);
      }),
    );
  });
});

describe('blink', () => {
  it('closed eyes by the absolute ratio, or relative to the person’s own open eyes', () => {
    expect(blinkOf(0.3)).toBe('no');
    expect(blinkOf(0.05)).toBe('yes');
    expect(blinkOf(0.14)).toBe('no'); // a laughing squint, no history
    expect(blinkOf(0.12, [0.32, 0.3, 0.31])).toBe('yes'); // < 45% of 0.31
    expect(blinkOf(0.2, [0.32, 0.3, 0.31])).toBe('no');
    expect(blinkOf(0.12, [0.32, 0.3])).toBe('no'); // too little history
    expect(blinkOf(NaN)).toBe('yes');
  });
});

describe('distance', () => {
  it('is metres from the pinhole model with a 63 mm IPD and a 60° horizontal field of view', () => {
    // f = 320 / tan 30° = 554.3 px for a 640 px frame; 63 mm at 0.5 m → 69.8 px
    expect(distanceOf(69.8, 0, 640)).toBeCloseTo(0.5, 2);
    expect(distanceOf(34.9, 0, 640)).toBeCloseTo(1, 2);
    // the same face in a frame twice as wide (same field of view) is twice as many pixels
    expect(distanceOf(69.8, 0, 1280)).toBeCloseTo(1, 2);
    // a turned face's eyes look closer together: corrected by cos(yaw)
    expect(distanceOf(34.9 * Math.cos(Math.PI / 4), 45, 640)).toBeCloseTo(1, 2);
    expect(distanceOf(0, 0, 640)).toBe(0);
  });
});

describe('dwell and glances', () => {
  const run = (attentions: (number | null)[]) => {
    let p: Presence | undefined;
    const out: { dwell: number; glances: number }[] = [];
    attentions.forEach((a, i) => {
      if (a === null) return;
      p = stepPresence(p, i, i * 200, a);
      out.push({ dwell: dwellOf(p, 200), glances: p.glances });
    });
    return out;
  };
  it('dwell counts sampled frames in view × the interval; glances count starts of attention', () => {
    expect(run([100, 100, 0, 0, 100, null, 100, 100])).toEqual([
      { dwell: 0.2, glances: 1 },
      { dwell: 0.4, glances: 1 },
      { dwell: 0.6, glances: 1 },
      { dwell: 0.8, glances: 1 },
      { dwell: 1.0, glances: 2 },
      // out of view for one frame: attention starts again
      { dwell: 1.2, glances: 3 },
      { dwell: 1.4, glances: 3 },
    ]);
  });
  it('a person never attentive has 0 glances; a still image has dwell 0', () => {
    expect(run([0, 10, 20]).map((x) => x.glances)).toEqual([0, 0, 0]);
    expect(dwellOf(stepPresence(undefined, 0, 0, 100), 0)).toBe(0);
  });
});

describe('timestamps', () => {
  it('YYYY-Mon-DD HH:MM:SS.ffffff in UTC with microseconds', () => {
    const t = Date.UTC(2024, 0, 5, 13, 4, 5, 123);
    expect(formatTimestamp(t)).toBe('2024-Jan-05 13:04:05.123000');
    expect(formatTimestamp(t + 0.4567)).toBe('2024-Jan-05 13:04:05.123457');
    expect(formatTimestamp(Date.UTC(1999, 11, 31, 23, 59, 59, 999) + 0.9999)).toBe('2000-Jan-01 00:00:00.000000');
    expect(formatTimestamp(0)).toBe('1970-Jan-01 00:00:00.000000');
  });
  it('always matches the pattern (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 4e12, noNaN: true }), (ms) => {
        expect(formatTimestamp(ms)).toMatch(TIMESTAMP_PATTERN);
      }),
    );
  });
});
