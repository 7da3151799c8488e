// The gallery file format (src/store/gallery-file.ts) and its base64 (src/store/base64.ts),
// pure, in Node: exact round trips and every way a file is refused. Export and import through
// IndexedDB with real models are tested in Chromium (test/browser/gallery-file.test.ts).
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/errors.ts';
import { base64ToBytes, base64ToFloat32, bytesToBase64, float32ToBase64 } from '../../src/store/base64.ts';
import { GALLERY_FILE_FORMAT, decodeGalleryFile, encodeGalleryFile, type GalleryFile } from '../../src/store/gallery-file.ts';
import type { StoredTemplate } from '../../src/store/schema.ts';
import { seededRandom as rng } from './helpers/seeded-random.ts';

const MODEL = 'faceapi-recognition@1.7.15+flip';
const MODELS = { [MODEL]: 128 };

/** Random bit patterns (every finite float32, subnormals and -0 included), not just nice numbers. */
function embedding(random: () => number, dim = 128): Float32Array {
  const bits = Uint32Array.from({ length: dim }, () => Math.floor(random() * 2 ** 32));
  const v = new Float32Array(bits.buffer);
  for (let i = 0; i < dim; i++) if (!Number.isFinite(v[i]!)) v[i] = -0;
  v[0] = -0;
  v[1] = 1.4e-45; // smallest subnormal
  v[2] = 3.4028234663852886e38; // largest finite
  return v;
}

const random = rng(7);
let faceCounter = 0;
function stored(subject: string, imageKey?: string): StoredTemplate {
  faceCounter++;
  return {
    appId: 'app',
    gallery: 'staff',
    subject,
    faceId: `0190c1de-0000-7000-8000-${String(faceCounter).padStart(12, '0')}`,
    enrollmentTimestamp: String(1_720_000_000_000 + faceCounter),
    modelId: MODEL,
    embedding: embedding(random),
    box: { topLeftX: 10.5, topLeftY: 20, width: 100, height: 120 },
    attributes: { age: 33, gender: { type: 'F', femaleConfidence: 0.9 }, lips: 'Together' },
    quality: 0.81,
    ...(imageKey ? { imageKey } : {}),
  };
}

const photo = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1, 2, 3, 250, 251]);

function sampleFile(): { templates: StoredTemplate[]; file: GalleryFile } {
  // alice: two faces of one multi-face photo plus one without a stored photo; bob: one template
  const templates = [stored('alice', 'img-a'), stored('alice', 'img-a'), stored('alice'), stored('bob', 'img-b')];
  const file = encodeGalleryFile({
    gallery: 'staff',
    exportedAt: new Date('2025-01-02T03:04:05.678Z'),
    templates,
    images: [
      { subject: 'alice', imageKey: 'img-a', mimeType: 'image/jpeg', bytes: photo },
      { subject: 'bob', imageKey: 'img-b', mimeType: 'image/png', bytes: photo.slice(0, 3) },
    ],
  });
  return { templates, file };
}

/** The EngineError `work` throws. */
function refusal(work: () => unknown): { code: number; message: string } {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    return (error as EngineError).failure;
  }
  throw new Error('expected the file to be refused');
}

/** A deep copy of the sample file's JSON with `edit` applied. */
function edited(edit: (file: GalleryFile) => void): unknown {
  const copy = JSON.parse(JSON.stringify(sampleFile().file)) as GalleryFile;
  edit(copy);
  return copy;
}

describe('base64', () => {
  it('matches Node for every length and byte value', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n * 7 }, () => Math.floor(random() * 256));
      const text = bytesToBase64(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64'));
      expect(base64ToBytes(text)).toEqual(bytes);
    }
    const big = Uint8Array.from({ length: 200_000 }, (_, i) => i * 31); // several String.fromCharCode chunks
    expect(Buffer.from(base64ToBytes(bytesToBase64(big))!).equals(Buffer.from(big))).toBe(true);
  });

  it('accepts only canonical base64', () => {
    expect(base64ToBytes('AAEC')).toEqual(new Uint8Array([0, 1, 2]));
    for (const bad of ['AAE', 'AA EC', 'AAE*', 'AAF=', 'A===', '====', 'AAEC\n']) expect(base64ToBytes(bad), bad).toBeUndefined();
  });

  it('float32 is little-endian and exact', () => {
    expect(float32ToBase64(Float32Array.of(1))).toBe('AACAPw=='); // 00 00 80 3f
    const v = embedding(random);
    const back = base64ToFloat32(float32ToBase64(v));
    expect(back).toBeInstanceOf(Float32Array);
    expect(new Uint32Array((back as Float32Array).buffer)).toEqual(new Uint32Array(v.buffer));
    expect(base64ToFloat32('AAEC')).toEqual({ error: 'is 3 bytes, not a whole number of float32 values' });
  });
});

describe('gallery file', () => {
  it('round-trips through JSON text with bit-exact embeddings, ids, timestamps and photos', async () => {
    const { templates, file } = sampleFile();
    expect(file).toMatchObject({ format: GALLERY_FILE_FORMAT, version: 1, gallery_name: 'staff', exported_at: '2025-01-02T03:04:05.678Z' });
    expect(file.subjects.map((s) => s.subject_id)).toEqual(['alice', 'bob']);
    // the shared photo is in the file once
    expect(file.subjects[0]!.images).toHaveLength(1);
    expect(file.subjects[0]!.templates.map((t) => t.image_id)).toEqual(['img-a', 'img-a', undefined]);

    const decoded = decodeGalleryFile(JSON.parse(JSON.stringify(file)), { models: MODELS });
    expect(decoded.gallery).toBe('staff');
    expect(decoded.subjects).toEqual(['alice', 'bob']);
    expect(decoded.templates).toHaveLength(templates.length);
    decoded.templates.forEach((d, i) => {
      const t = templates[i]!;
      expect(d.subject).toBe(t.subject);
      expect(d.faceId).toBe(t.faceId);
      expect(d.enrollmentTimestamp).toBe(t.enrollmentTimestamp);
      expect(d.template).toMatchObject({ modelId: t.modelId, box: t.box, attributes: t.attributes, quality: t.quality });
      expect(new Uint32Array(d.template.embedding.buffer)).toEqual(new Uint32Array(t.embedding.buffer));
      expect(Object.is(d.template.embedding[0], -0)).toBe(true);
    });
    // one Blob per photo, shared by the templates that came from it
    const [a1, a2, a3, b1] = decoded.templates;
    expect(a1!.image).toBe(a2!.image);
    expect(a3!.image).toBeUndefined();
    expect(a1!.image!.type).toBe('image/jpeg');
    expect(new Uint8Array(await a1!.image!.arrayBuffer())).toEqual(photo);
    expect(new Uint8Array(await b1!.image!.arrayBuffer())).toEqual(photo.slice(0, 3));
  });

  it('exports without photos when none are given, and re-encodes to the same file', () => {
    const { templates } = sampleFile();
    const plain = encodeGalleryFile({ gallery: 'staff', exportedAt: new Date(0), templates });
    expect(plain.subjects.every((s) => s.images === undefined && s.templates.every((t) => t.image_id === undefined))).toBe(true);
    const decoded = decodeGalleryFile(plain);
    const again = encodeGalleryFile({
      gallery: decoded.gallery,
      exportedAt: new Date(0),
      templates: decoded.templates.map((d) => ({ ...d.template, appId: 'x', gallery: 'staff', subject: d.subject, faceId: d.faceId, enrollmentTimestamp: d.enrollmentTimestamp })),
    });
    expect(again).toEqual(plain);
  });

  it('refuses what is not a version-1 gallery file (1003)', () => {
    const cases: [unknown, RegExp][] = [
      [null, /JSON object/],
      [[], /JSON object/],
      [edited((f) => ((f as { format: string }).format = 'something/else')), /not a gallery file/],
      [edited((f) => ((f as { version: number }).version = 2)), /version 2 is newer than this engine reads \(1\)/],
      [edited((f) => ((f as { version: unknown }).version = '1')), /unsupported gallery file version "1"/],
      [edited((f) => delete (f as Partial<GalleryFile>).gallery_name), /gallery_name/],
      [edited((f) => ((f as { exported_at: string }).exported_at = 'yesterday')), /exported_at/],
      [edited((f) => (f.subjects = [])), /at least one subject/],
      [edited((f) => (f.subjects[1]!.templates = [])), /at least one template/],
      [edited((f) => ((f.subjects[0]!.templates[0]!.box as { width: unknown }).width = '100')), /subjects\.0\.templates\.0\.box\.width/],
      [edited((f) => (f.subjects[0]!.templates[0]!.enrollment_timestamp = '1e12')), /enrollment_timestamp/],
      [edited((f) => (f.subjects[1]!.subject_id = 'alice')), /subject "alice" appears twice/],
      [edited((f) => (f.subjects[1]!.templates[0]!.face_id = f.subjects[0]!.templates[0]!.face_id)), /face_id appears twice/],
      [edited((f) => (f.subjects[0]!.templates[0]!.image_id = 'nope')), /image_id "nope" is not among/],
      [edited((f) => (f.subjects[0]!.images![0]!.base64 = 'not base64!')), /image "img-a" is not valid base64/],
      [edited((f) => (f.subjects[0]!.subject_id = 'a\u0000b')), /subject_id/],
    ];
    for (const [file, message] of cases) {
      const f = refusal(() => decodeGalleryFile(file, { models: MODELS }));
      expect(f.code, String(message)).toBe(1003);
      expect(f.message).toMatch(/^invalid value for parameter file: /);
      expect(f.message).toMatch(message);
    }
  });

  it('refuses embeddings of a model the engine does not use (1003, naming both)', () => {
    const file = edited((f) => (f.subjects[1]!.templates[0]!.model_id = 'mobilefacenet@1'));
    const f = refusal(() => decodeGalleryFile(file, { models: MODELS }));
    expect(f.code).toBe(1003);
    expect(f.message).toContain('"mobilefacenet@1"');
    expect(f.message).toContain(`"${MODEL}" (128 floats)`);
    expect(f.message).toContain('subject "bob", template 1');
    expect(decodeGalleryFile(file).templates).toHaveLength(4); // no model list: any model
  });

  it('refuses damaged embeddings (5005), naming the template', () => {
    const set = (v: Float32Array) => edited((f) => (f.subjects[0]!.templates[1]!.embedding = float32ToBase64(v)));
    const embeddingText = sampleFile().file.subjects[0]!.templates[1]!.embedding;
    const cases: [unknown, RegExp][] = [
      // cut in the middle: not base64 any more, or (cut at 16 characters = 12 bytes = 3 floats) too short
      [edited((f) => (f.subjects[0]!.templates[1]!.embedding = embeddingText.slice(0, 301))), /is not valid base64/],
      [edited((f) => (f.subjects[0]!.templates[1]!.embedding = embeddingText.slice(0, 304))), /has 57 floats; model ".*" makes 128/],
      [edited((f) => (f.subjects[0]!.templates[1]!.embedding = `${embeddingText.slice(0, 8)}*${embeddingText.slice(9)}`)), /is not valid base64/],
      [edited((f) => (f.subjects[0]!.templates[1]!.embedding = ` ${embeddingText.slice(1)}`)), /is not valid base64/],
      [edited((f) => (f.subjects[0]!.templates[1]!.embedding = 'AAEC')), /3 bytes, not a whole number of float32/],
      [edited((f) => (f.subjects[0]!.templates[1]!.embedding = '')), /is empty/],
      [set(new Float32Array(127)), /has 127 floats/],
      [set(Float32Array.from({ length: 128 }, (_, i) => (i === 5 ? Number.NaN : 0.1))), /not a finite number/],
      [set(Float32Array.from({ length: 128 }, (_, i) => (i === 127 ? -Infinity : 0.1))), /not a finite number/],
    ];
    for (const [file, message] of cases) {
      const f = refusal(() => decodeGalleryFile(file, { models: MODELS }));
      expect(f.code, String(message)).toBe(5005);
      expect(f.message).toMatch(/^corrupt face data in the gallery file: subject "alice", template 2 \(face_id /);
      expect(f.message).toMatch(message);
    }
  });
});
