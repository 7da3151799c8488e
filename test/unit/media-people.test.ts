// Frame analyses → media object frames, and media object → analytics (pure).
import { describe, expect, it } from 'vitest';
import { analyticsOf, samplingIntervalMs } from '../../src/media/analytics.ts';
import { ATTENTION, GENDER_CODE, GLASSES_CODE } from '../../src/media/metrics.ts';
import { FramesBuilder, type FrameFace } from '../../src/media/people.ts';
import { AnalyticsSchema, CompleteMediaSchema, MEDIA_STATUS, type CompleteMedia } from '../../src/media/schema.ts';
import { NAMED_LANDMARKS } from '../../src/vision/face-mesh.ts';

const BASE = Date.UTC(2025, 2, 14, 9, 26, 53, 0);

function face(x: number, opts: Partial<FrameFace> & { yaw?: number; ear?: number; age?: number; male?: number; happy?: number } = {}): FrameFace {
  const happy = opts.happy ?? 0.5;
  return {
    box: { x, y: 50, width: 100, height: 120 },
    geometry: { eyeDistance: 40, yaw: opts.yaw ?? 0, pitch: ATTENTION.pitchAtCameraDeg, roll: 1.23, eyeAspect: opts.ear ?? 0.3 },
    demographics: opts.age === undefined ? undefined : { age: opts.age, male: opts.male ?? 0.9 },
    emotion: { angry: 0.1, disgust: 0, fear: 0, happy, sad: 0.1, surprise: 0, neutral: 0.8 - happy },
    embeddings: opts.embeddings,
    mesh: opts.mesh,
  };
}

function media(frames: CompleteMedia['frames']): CompleteMedia {
  return {
    id: 'm1',
    length: 1,
    media_info: { file: 'clip.webm', length: 1, mime_type: 'video/webm', type: 'video' },
    ...MEDIA_STATUS.complete,
    frames,
  };
}

describe('FramesBuilder', () => {
  it('builds frames with every field, a stable person_id and settled demographics', () => {
    const b = new FramesBuilder({ landmarks: false, intervalMs: 200, baseEpochMs: BASE, width: 640, height: 360 });
    expect(b.addFrame(0, [face(100, { age: 30 })])).toEqual(['1']);
    expect(b.addFrame(200, [face(110, { age: 40, male: 0.2 })])).toEqual(['1']);
    expect(b.addFrame(400, [face(120, { yaw: 60 })])).toEqual(['1']); // no demographics in this frame
    expect(b.addFrame(600, [])).toEqual([]);
    expect(b.addFrame(800, [face(125)])).toEqual(['1']);
    const frames = b.finish();
    const m = CompleteMediaSchema.parse(media(frames));
    expect(m.frames.map((f) => f.time)).toEqual([0, 200, 400, 600, 800]);
    const people = m.frames.flatMap((f) => f.people);
    expect(new Set(people.map((p) => p.person_id))).toEqual(new Set(['1']));
    // median age 35 → Adult in every frame; mean male 0.55 → Male
    for (const p of people) expect(p.demographics).toEqual({ age_group: 'Adult', gender: 'Male' });
    const [first, , turned, last] = people;
    expect(Object.keys(first!)).toEqual([
      'person_id', 'appearance', 'demographics', 'distance', 'emotions', 'face', 'pose', 'tracking', 'start_time', 'end_time',
    ]);
    expect(first!.appearance).toEqual({ glasses: 'Unknown' });
    expect(first!.face).toEqual({ x: 100, y: 50, width: 100, height: 120 });
    expect(first!.pose).toEqual({ pitch: ATTENTION.pitchAtCameraDeg, roll: 1.2, yaw: 0 });
    expect(first!.emotions).toEqual({ anger: 10, disgust: 0, fear: 0, joy: 50, sadness: 10, surprise: 0 });
    expect(first!.distance).toBeCloseTo((0.063 * 320) / Math.tan(Math.PI / 6) / 40, 2);
    expect(first!.tracking).toEqual({ attention: 100, blink: 'no', dwell: 0.2, glances: 1 });
    expect(turned!.tracking).toEqual({ attention: 0, blink: 'no', dwell: 0.6, glances: 1 });
    // attentive again after a look away and an absence: a second glance
    expect(last!.tracking).toEqual({ attention: 100, blink: 'no', dwell: 0.8, glances: 2 });
    expect(first!.start_time).toBe('2025-Mar-14 09:26:53.000000');
    expect(last!.start_time).toBe('2025-Mar-14 09:26:53.000000');
    expect(last!.end_time).toBe('2025-Mar-14 09:26:53.800000');
    expect(first!.landmarks).toBeUndefined();
  });

  it('clips faces to the frame and scales analysis pixels to media pixels', () => {
    const b = new FramesBuilder({ landmarks: false, intervalMs: 0, baseEpochMs: BASE, width: 400, height: 300 });
    b.addFrame(0, [{ ...face(0), box: { x: -20.4, y: 250, width: 100, height: 100 } }]);
    b.addFrame(0, [{ ...face(0), box: { x: 10, y: 10, width: 50.2, height: 50 } }], 2);
    const [a, c] = b.finish().map((f) => f.people[0]!);
    expect(a!.face).toEqual({ x: 0, y: 250, width: 80, height: 50 });
    expect(c!.face).toEqual({ x: 20, y: 20, width: 100, height: 100 });
    expect(c!.distance).toBeCloseTo(a!.distance / 2, 1);
  });

  it('landmarks=1: the 49 named points as single-key objects with integer coordinates', () => {
    const mesh = Array.from({ length: 468 }, (_, i) => ({ x: i + 0.4, y: 2 * i + 0.6 }));
    const b = new FramesBuilder({ landmarks: true, intervalMs: 0, baseEpochMs: BASE, width: 2000, height: 2000 });
    b.addFrame(0, [face(10, { mesh, age: 20 })], 1.5);
    const p = b.finish()[0]!.people[0]!;
    expect(p.landmarks).toHaveLength(49);
    p.landmarks!.forEach((l, k) => {
      const [name, index] = NAMED_LANDMARKS[k]!;
      expect(l).toEqual({ [name]: { x: Math.round((index + 0.4) * 1.5), y: Math.round((2 * index + 0.6) * 1.5) } });
    });
    expect(CompleteMediaSchema.parse(media(b.finish()))).toBeTruthy();
  });

  it('tells when the latest frame has a person without demographics, and takes them from a second pass', () => {
    const b = new FramesBuilder({ landmarks: false, intervalMs: 200, baseEpochMs: BASE, width: 640, height: 360 });
    b.addFrame(0, [face(100)]);
    expect(b.latestFrameLacksDemographics()).toBe(true);
    b.supplyDemographics([face(100, { age: 70, male: 0.1 })]);
    expect(b.latestFrameLacksDemographics()).toBe(false);
    expect(b.demographicSamples('1')).toBe(1);
    expect(b.finish()[0]!.people[0]!.demographics).toEqual({ age_group: 'Senior', gender: 'Female' });
  });

  it('blinks are judged against the person’s own open eyes', () => {
    const b = new FramesBuilder({ landmarks: false, intervalMs: 200, baseEpochMs: BASE, width: 640, height: 360 });
    [0.3, 0.31, 0.29, 0.11, 0.3].forEach((ear, k) => b.addFrame(k * 200, [face(100, { ear, age: 30 })]));
    expect(b.finish().map((f) => f.people[0]!.tracking.blink)).toEqual(['no', 'no', 'no', 'yes', 'no']);
  });
});

describe('analyticsOf', () => {
  it('one impression per person with averages, codes and durations', () => {
    const b = new FramesBuilder({ landmarks: false, intervalMs: 200, baseEpochMs: BASE, width: 640, height: 360 });
    b.addFrame(0, [face(100, { age: 30, happy: 0.8 }), face(400, { age: 12, male: 0.1, happy: 0 })]);
    b.addFrame(200, [face(100, { happy: 0.4 })]);
    b.addFrame(400, [face(100, { yaw: 90, happy: 0.6 })]);
    const m = media(b.finish());
    const a = AnalyticsSchema.parse(analyticsOf(m));
    expect(a.id).toBe('m1');
    expect(a.media_info).toEqual({ filename: 'clip.webm', length: 1, mime_type: 'video/webm', type: 'video' });
    expect(a.impressions.map((i) => i.id)).toEqual(['1', '2']);
    const [p1, p2] = a.impressions;
    expect(p1!.average_emotion.joy).toBeCloseTo(60, 6);
    expect(p1!.average_emotion.anger).toBeCloseTo(10, 6);
    expect(p1!.emotion_score).toEqual({ negative: 20, neutral: 20, positive: 60 });
    expect(p1!.duration).toBe(0.6);
    expect(p1!.tracking).toEqual({ attention: 66.7, dwell: 0.6, glances: 1 });
    expect(p1!.demographics).toEqual({ age_group: 'Young Adult', gender: GENDER_CODE.Male });
    expect(p1!.appearance).toEqual({ glasses: GLASSES_CODE.Unknown });
    expect(GLASSES_CODE.Unknown).toBe(-1);
    expect(p2!.demographics).toEqual({ age_group: 'Child', gender: GENDER_CODE.Female });
    expect(p2!.duration).toBe(0.2);
    expect(p2!.tracking.dwell).toBe(0.2);
  });

  it('no people → no impressions; an image (one frame) has duration 0', () => {
    expect(analyticsOf(media([{ time: 0, people: [] }])).impressions).toEqual([]);
    const b = new FramesBuilder({ landmarks: false, intervalMs: 0, baseEpochMs: BASE, width: 640, height: 360 });
    b.addFrame(0, [face(100, { age: 30 })]);
    const m = media(b.finish());
    expect(samplingIntervalMs(m)).toBe(0);
    const [i] = analyticsOf(m).impressions;
    expect(i!.duration).toBe(0);
    expect(i!.tracking.dwell).toBe(0);
  });
});
