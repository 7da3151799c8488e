// No made-up values: the pure mappings from analyses to response bodies, fed random
// measurements, must move every field audited as measured or derived (a constant such as the
// old glasses "No" or hispanic 0 never moves and fails here), must send the documented unknown
// value for every unmeasured field, and must send no field the audit does not list.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELD_AUDIT, leaves, UNKNOWN } from '../../src/api/field-audit.ts';
import { analyticsOf } from '../../src/media/analytics.ts';
import { FramesBuilder, type FrameFace } from '../../src/media/people.ts';
import { AnalyticsSchema, CompleteMediaSchema, MEDIA_STATUS, type CompleteMedia } from '../../src/media/schema.ts';
import { kairosDetectFace } from '../../src/service/face-json.ts';
import type { FaceAnalysis } from '../../src/worker/face-analyzer.ts';
import { DetectFaceSchema } from '../../src/api/detect-schema.ts';
import { seededRandom } from './helpers/seeded-random.ts';

const random = seededRandom(15);
const between = (lo: number, hi: number) => lo + (hi - lo) * random();
const point = () => ({ x: between(0, 640), y: between(0, 480) });

function randomFace(liveness: boolean): FaceAnalysis {
  const race = { white: random(), black: random(), asian: random(), indian: random(), other: random() };
  const sum = Object.values(race).reduce((a, b) => a + b, 0);
  for (const k of Object.keys(race) as (keyof typeof race)[]) race[k] /= sum;
  const box = { x: between(0, 300), y: between(0, 200), width: between(40, 300), height: between(40, 300) };
  return {
    detection: { box, score: between(0.6, 1), keypoints: [] },
    meshScore: between(0.65, 1),
    box,
    geometry: {
      leftEye: point(), rightEye: point(), chin: point(), noseTip: point(), mouthLeft: point(), mouthRight: point(), mouthCenter: point(),
      eyeDistance: between(10, 200), yaw: between(-60, 60), pitch: between(-40, 40), roll: between(-60, 60),
      mouthOpen: between(0, 0.3), eyeAspect: between(0.05, 0.4),
    },
    quality: between(0, 1),
    faceView: { cx: 0, cy: 0, size: 1, angle: 0 },
    demographics: { age: between(2, 90), male: random(), race },
    ...(liveness ? { liveness: random() } : {}),
  };
}

function randomFrameFace(): FrameFace {
  const f = randomFace(false);
  const p = Array.from({ length: 7 }, () => random());
  return {
    box: f.box,
    geometry: f.geometry,
    demographics: f.demographics,
    emotion: { angry: p[0]!, disgust: p[1]!, fear: p[2]!, happy: p[3]!, sad: p[4]!, surprise: p[5]!, neutral: p[6]! },
    mesh: Array.from({ length: 468 }, point),
  };
}

/** Values seen per audited path over many bodies; fails on an unaudited path or a wrong unknown. */
function collect(endpoint: string, bodies: unknown[]): Map<string, Set<string>> {
  const audit = FIELD_AUDIT[endpoint]!;
  const seen = new Map<string, Set<string>>();
  for (const body of bodies) {
    for (const [path, value] of leaves(body)) {
      const field = audit[path];
      expect(field, `${endpoint}: ${path} is sent but not in the audit (src/api/field-audit.ts)`).toBeDefined();
      if (field!.source === 'unmeasured') expect(value, `${endpoint}: ${path} is not measured`).toBe(typeof value === 'number' ? UNKNOWN.number : UNKNOWN.string);
      if (!seen.has(path)) seen.set(path, new Set());
      seen.get(path)!.add(JSON.stringify(value));
    }
  }
  return seen;
}

/** Every measured or derived field took at least two values: none is a constant. */
function expectNoConstants(endpoint: string, seen: Map<string, Set<string>>, skip: readonly string[] = []) {
  for (const [path, field] of Object.entries(FIELD_AUDIT[endpoint]!)) {
    if ((field.source !== 'measured' && field.source !== 'derived') || skip.includes(path)) continue;
    const values = seen.get(path);
    expect(values, `${endpoint}: ${path} never appeared`).toBeDefined();
    expect(values!.size, `${endpoint}: ${path} is ${[...values!][0]} for every input: a constant, not a measurement`).toBeGreaterThan(1);
  }
}

describe('no made-up values', () => {
  it('/detect faces: every measured attribute moves with the measurements; hispanic is the unknown -1', () => {
    const faces = Array.from({ length: 60 }, (_, i) => kairosDetectFace(randomFace(i % 2 === 0), 1, 640, 480));
    for (const f of faces) DetectFaceSchema.parse(f);
    const bodies = faces.map((f) => ({ images: [{ status: 'Complete', width: 640, height: 480, file: 'x.jpg', faces: [f] }] }));
    // image width/height are the decoded size, fixed here by the test's own inputs
    expectNoConstants('detect', collect('detect', bodies), ['images[].width', 'images[].height']);
    expect(faces.every((f) => f.attributes.hispanic === -1)).toBe(true);
  });

  it('/v2/media frames and /v2/analytics: every measured field moves; glasses are the unknown "Unknown" / -1', () => {
    const medias: CompleteMedia[] = [];
    for (let clip = 0; clip < 8; clip++) {
      const b = new FramesBuilder({ landmarks: true, intervalMs: 200, baseEpochMs: Date.UTC(2025, 0, 1) + clip * 1000, width: 640, height: 480 });
      for (let t = 0; t < 12; t++) b.addFrame(t * 200, Array.from({ length: 1 + (t % 3) }, randomFrameFace));
      medias.push(CompleteMediaSchema.parse({
        id: `m${clip}`, length: 2.4, media_info: { file: 'clip.webm', length: 2.4, mime_type: 'video/webm', type: 'video' }, ...MEDIA_STATUS.complete, frames: b.finish(),
      }));
    }
    // the wrapper (length, media_info) is the test's own input, not the mapping's output
    const wrapper = ['length', 'media_info.length', 'media_info.mime_type', 'media_info.type'];
    expectNoConstants('media', collect('media', medias), wrapper);
    const analytics = medias.map((m) => AnalyticsSchema.parse(analyticsOf(m)));
    expectNoConstants('analytics', collect('analytics', analytics), wrapper);
    for (const m of medias) for (const f of m.frames) for (const p of f.people) expect(p.appearance.glasses).toBe('Unknown');
    for (const a of analytics) for (const i of a.impressions) expect(i.appearance.glasses).toBe(-1);
  });

  it('a person never estimated gets "Unknown" demographics (never a guessed Adult Male), code -1 in analytics', () => {
    const b = new FramesBuilder({ landmarks: false, intervalMs: 0, baseEpochMs: 0, width: 640, height: 480 });
    b.addFrame(0, [{ ...randomFrameFace(), demographics: undefined }]);
    const media = CompleteMediaSchema.parse({ id: 'm', length: 0, media_info: { file: 'a.jpg', length: 0, mime_type: 'image/jpeg', type: 'image' }, ...MEDIA_STATUS.complete, frames: b.finish() });
    expect(media.frames[0]!.people[0]!.demographics).toEqual({ age_group: 'Unknown', gender: 'Unknown' });
    expect(analyticsOf(media).impressions[0]!.demographics).toEqual({ age_group: 'Unknown', gender: -1 });
  });

  it('docs/api.md lists every audited field of every endpoint', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    for (const [endpoint, fields] of Object.entries(FIELD_AUDIT)) {
      for (const path of Object.keys(fields)) expect(doc, `docs/api.md: ${endpoint} ${path}`).toContain(`\`${path}\``);
    }
  });
});
