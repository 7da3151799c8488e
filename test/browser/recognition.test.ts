// Recognition end to end in Chromium: real models, real IndexedDB, the engine's typed API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import obama2Url from '../../../shared/data/faces/obama/obama2.jpg?url';
import obama1Url from '../../../shared/data/faces/obama/obama1.jpg?url';
import bidenUrl from '../../../shared/data/faces/biden/biden.jpg?url';
import biden2Url from '../../../shared/data/faces/biden/biden2.jpg?url';
import pairUrl from '../../../shared/data/groups/obama_and_biden.jpg?url';
import whiteUrl from '../../../shared/data/negatives/white_150.png?url';
import { createEngine, type Engine } from '../../src/index.ts';

const storageName = `recognition-test-${Date.now()}`;
let engine: Engine;
const blobOf = async (url: string) => (await fetch(url)).blob();
const code = (r: unknown) => (r as { Errors?: { ErrCode: number }[] }).Errors?.[0]?.ErrCode;
function body<T>(r: T): Exclude<T, { Errors: unknown }> {
  if (r && typeof r === 'object' && 'Errors' in r) throw new Error(JSON.stringify(r));
  return r as Exclude<T, { Errors: unknown }>;
}

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm', storageName });
  for (const [subject, url] of [['obama', obamaUrl], ['biden', bidenUrl]] as const) {
    body(await engine.enroll({ image: await blobOf(url), subject_id: subject, gallery_name: 'people' }));
  }
});
afterAll(() => engine?.close());

describe('recognition', () => {
  it('enroll answers face_id, attributes and the transaction', async () => {
    const r = body(await engine.enroll({ image: await blobOf(obama1Url), subject_id: 'obama', gallery_name: 'people' }));
    expect(typeof r.face_id).toBe('string');
    const t = r.images[0]!.transaction;
    expect(t).toMatchObject({ status: 'success', subject_id: 'obama', gallery_name: 'people', face_id: 1 });
    expect(t.timestamp).toMatch(/^\d{13}$/);
    expect(r.images[0]!.attributes.gender.type).toBe('M');
  });

  it('verify: the same person scores high, a different person low', async () => {
    const same = body(await engine.verify({ image: await blobOf(obama2Url), subject_id: 'obama', gallery_name: 'people' }));
    const other = body(await engine.verify({ image: await blobOf(obama2Url), subject_id: 'biden', gallery_name: 'people' }));
    expect(same.images[0]!.transaction.status).toBe('success');
    expect(same.images[0]!.transaction.confidence).toBeGreaterThan(0.6);
    expect(other.images[0]!.transaction.confidence).toBeLessThan(0.6);
  });

  it('recognize: one entry per face, candidates sorted and above the threshold', async () => {
    const r = body(await engine.recognize({ image: await blobOf(pairUrl), gallery_name: 'people' }));
    expect(r.images.length).toBeGreaterThanOrEqual(2);
    const names = r.images.map((i) => i.candidates?.[0]?.subject_id).filter(Boolean);
    expect(names).toContain('obama');
    expect(names).toContain('biden');
    for (const image of r.images) {
      const c = image.candidates ?? [];
      expect(c.every((x) => x.confidence >= 0.6)).toBe(true);
      expect([...c].sort((a, b) => b.confidence - a.confidence)).toEqual(c);
    }
    const single = body(await engine.recognize({ image: await blobOf(biden2Url), gallery_name: 'people', max_num_results: 1 }));
    expect(single.images[0]!.candidates).toHaveLength(1);
    expect(single.images[0]!.transaction.subject_id).toBe('biden');
    const strict = body(await engine.recognize({ image: await blobOf(biden2Url), gallery_name: 'people', threshold: 1 }));
    expect(strict.images[0]!.candidates).toEqual([]);
    expect(strict.images[0]!.transaction.status).toBe('failure');
  });

  it('errors: 5004, 5003, 5002, 5010', async () => {
    const img = await blobOf(obama2Url);
    expect(code(await engine.verify({ image: img, subject_id: 'obama', gallery_name: 'nope' }))).toBe(5004);
    expect(code(await engine.verify({ image: img, subject_id: 'nobody', gallery_name: 'people' }))).toBe(5003);
    expect(code(await engine.recognize({ image: img, gallery_name: 'nope' }))).toBe(5004);
    expect(code(await engine.enroll({ image: await blobOf(whiteUrl), subject_id: 'x', gallery_name: 'people' }))).toBe(5002);
    expect(code(await engine.enroll({ image: await blobOf(pairUrl), subject_id: 'x', gallery_name: 'people' }))).toBe(5010);
    expect(code(await engine.galleryViewSubject({ gallery_name: 'people', subject_id: 'nobody' }))).toBe(5003);
    const bad = await engine.galleryRemoveSubject({ gallery_name: 'people', subject_id: 'obama', face_id: 'no-such-face' });
    expect(code(bad)).toBe(5003);
    expect(JSON.stringify(bad)).toContain('face id');
  });

  it('multiple_faces enrolls every face under one subject', async () => {
    const r = body(await engine.enroll({ image: await blobOf(pairUrl), subject_id: 'crowd', gallery_name: 'crowds', multiple_faces: true }));
    expect(r.images.length).toBeGreaterThanOrEqual(2);
    const listed = body(await engine.galleryViewSubject({ gallery_name: 'crowds', subject_id: 'crowd' }));
    expect(listed.face_ids).toHaveLength(r.images.length);
  });

  it('gallery lifecycle: view, remove one template, remove subjects, the gallery vanishes with the last', async () => {
    const g = 'lifecycle';
    const a = body(await engine.enroll({ image: await blobOf(obamaUrl), subject_id: 'obama', gallery_name: g }));
    body(await engine.enroll({ image: await blobOf(obama2Url), subject_id: 'obama', gallery_name: g }));
    body(await engine.enroll({ image: await blobOf(bidenUrl), subject_id: 'biden', gallery_name: g }));
    expect(body(await engine.galleryListAll({})).gallery_ids).toContain(g);
    expect(body(await engine.galleryView({ gallery_name: g })).subject_ids.sort()).toEqual(['biden', 'obama']);
    const templates = body(await engine.galleryViewSubject({ gallery_name: g, subject_id: 'obama' })).face_ids;
    expect(templates).toHaveLength(2);
    body(await engine.galleryRemoveSubject({ gallery_name: g, subject_id: 'obama', face_id: a.face_id }));
    expect(body(await engine.galleryViewSubject({ gallery_name: g, subject_id: 'obama' })).face_ids).toHaveLength(1);
    body(await engine.galleryRemoveSubject({ gallery_name: g, subject_id: 'obama' }));
    body(await engine.galleryRemoveSubject({ gallery_name: g, subject_id: 'biden' }));
    expect(body(await engine.galleryListAll({})).gallery_ids).not.toContain(g);
    expect(code(await engine.galleryView({ gallery_name: g }))).toBe(5004);
  });

  describe('store_image: every enrolled photo is kept whatever its transport, unless store_image is false', () => {
    const bytesOf = async (url: string) => new Uint8Array(await (await fetch(url)).arrayBuffer());
    const base64 = (b: Uint8Array) => {
      let s = '';
      for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
      return btoa(s);
    };
    const transports: Record<string, (b: Uint8Array) => Blob | string> = {
      upload: (b) => new File([b as Uint8Array<ArrayBuffer>], 'obama.jpg'), // no declared type: content decides
      base64: (b) => base64(b),
      'data: URL': (b) => `data:image/jpeg;base64,${base64(b)}`,
      URL: () => new URL(obamaUrl, location.href).href,
    };
    for (const [transport, image] of Object.entries(transports)) {
      it(`${transport}: the photo is stored byte for byte (typed by its content); store_image false stores none`, async () => {
        const source = await bytesOf(obamaUrl);
        const subject = `kept-${transport}`;
        const kept = body(await engine.enroll({ image: image(source), subject_id: subject, gallery_name: 'photos' }));
        const photo = body(await engine.templateImage({ gallery_name: 'photos', subject_id: subject, face_id: kept.face_id }));
        expect(photo, transport).not.toBeNull();
        expect(photo!.image.type).toBe('image/jpeg');
        expect(new Uint8Array(await photo!.image.arrayBuffer())).toEqual(source);
        const dropped = body(await engine.enroll({ image: image(source), subject_id: `dropped-${transport}`, gallery_name: 'photos' }, { storeImage: false }));
        expect(await engine.templateImage({ gallery_name: 'photos', subject_id: `dropped-${transport}`, face_id: dropped.face_id })).toBeNull();
      });
    }

    it('a Kairos client posting base64 JSON keeps its photo; the store_image: false header keeps none', async () => {
      const image = base64(await bytesOf(obamaUrl));
      const post = async (subject: string, headers: Record<string, string> = {}) => {
        const r = await engine.handle(
          new Request('https://api.kairos.com/enroll', {
            method: 'POST',
            headers: { app_id: 'demo', app_key: 'demo', 'Content-Type': 'application/json', ...headers },
            body: JSON.stringify({ image, subject_id: subject, gallery_name: 'http-photos' }),
          }),
        );
        const face = ((await r.json()) as { face_id: string }).face_id;
        return engine.templateImage({ gallery_name: 'http-photos', subject_id: subject, face_id: face }, { appId: 'demo' });
      };
      expect(body(await post('kept'))?.image.size).toBeGreaterThan(1000);
      expect(await post('dropped', { store_image: 'false' })).toBeNull();
    });
  });

  it('galleries persist for a new engine on the same storage, and accounts are isolated', async () => {
    const again = await createEngine({ backend: 'wasm', storageName });
    try {
      expect(body(await again.galleryListAll({})).gallery_ids).toContain('people');
      const r = body(await again.recognize({ image: await blobOf(biden2Url), gallery_name: 'people' }));
      expect(r.images[0]!.transaction.subject_id).toBe('biden');
      expect(body(await again.galleryListAll({}, { appId: 'someone-else' })).gallery_ids).toEqual([]);
      expect(code(await again.recognize({ image: await blobOf(biden2Url), gallery_name: 'people' }, { appId: 'someone-else' }))).toBe(5004);
    } finally {
      again.close();
    }
  });
});
