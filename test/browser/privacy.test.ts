// Privacy in real Chromium with the real models and IndexedDB: a gallery that requires consent
// refuses an enroll without a consent record (1002, before any image work); the record is kept
// with the subject's templates, travels in gallery files and goes with the subject.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import { createEngine, type Engine } from '../../src/index.ts';

const storageName = `privacy-test-${Date.now()}`;
let engine: Engine;
const blobOf = async (url: string) => (await fetch(url)).blob();
function body<T>(r: T): Exclude<T, { Errors: unknown }> {
  if (r && typeof r === 'object' && 'Errors' in r) throw new Error(JSON.stringify(r));
  return r as Exclude<T, { Errors: unknown }>;
}

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm', storageName });
});
afterAll(() => engine?.close());

const CONSENT = { given_by: 'Barack Obama', given_at: '2026-11-27T09:30:00Z', purpose: 'gym check-in', text_version: 'v3' };

describe('consent', () => {
  it('a requireConsent gallery refuses an enroll without a consent record; the record is kept, exported, imported and removed with the subject', async () => {
    expect(body(await engine.galleryOptions({ gallery_name: 'gym' }))).toEqual({ gallery_name: 'gym', requireConsent: false });
    body(await engine.setGalleryOptions({ gallery_name: 'gym', requireConsent: true }));
    const image = await blobOf(obamaUrl);
    expect(await engine.enroll({ image, subject_id: 'obama', gallery_name: 'gym' })).toEqual({
      Errors: [{ ErrCode: 1002, Message: 'consent is required: gallery gym enrolls only with a consent record (consent: given_by, given_at, purpose, text_version)' }],
    });
    const malformed = await engine.enroll({ image, subject_id: 'obama', gallery_name: 'gym', consent: { ...CONSENT, given_at: 'yesterday' } });
    expect(malformed).toMatchObject({ Errors: [{ ErrCode: 1003 }] });
    expect(await engine.galleryListAll()).toMatchObject({ gallery_ids: [] }); // nothing was stored

    const enrolled = body(await engine.enroll({ image, subject_id: 'obama', gallery_name: 'gym', consent: CONSENT }));
    const [stored] = body(await engine.subjectTemplates({ gallery_name: 'gym', subject_id: 'obama' }));
    expect(stored!.face_id).toBe(enrolled.face_id);
    expect(stored!.attributes.consent).toEqual(CONSENT);
    // it travels in the gallery file, and arrives with an import
    const file = body(await engine.exportGallery({ gallery_name: 'gym' }));
    body(await engine.importGallery({ file, gallery_name: 'gym-copy' }));
    const [copied] = body(await engine.subjectTemplates({ gallery_name: 'gym-copy', subject_id: 'obama' }));
    expect(copied!.attributes.consent).toEqual(CONSENT);
    // and goes with the subject; the policy stays
    body(await engine.forget({ gallery_name: 'gym', subject_id: 'obama' }));
    expect(await engine.subjectTemplates({ gallery_name: 'gym', subject_id: 'obama' })).toMatchObject({ Errors: [{ ErrCode: 5004 }] });
    expect(body(await engine.galleryOptions({ gallery_name: 'gym' }))).toMatchObject({ requireConsent: true });
  });
});

describe('retention', () => {
  const DAY = 86_400_000;
  it("'enrolled': templates older than the days are destroyed; 'lastSeen': a verify keeps the subject until days after it", async () => {
    const image = await blobOf(obamaUrl);
    body(await engine.setGalleryOptions({ gallery_name: 'visitors', retention: { days: 30, from: 'enrolled' } }));
    body(await engine.setGalleryOptions({ gallery_name: 'members', retention: { days: 30, from: 'lastSeen' } }));
    const visitor = body(await engine.enroll({ image, subject_id: 'obama', gallery_name: 'visitors' }));
    const enrolledAt = Number(visitor.images[0]!.transaction.timestamp);
    body(await engine.enroll({ image, subject_id: 'obama', gallery_name: 'members' }));
    await new Promise((r) => setTimeout(r, 1100));
    body(await engine.verify({ image, subject_id: 'obama', gallery_name: 'members' })); // seen ≥ 1 s after enrolling

    expect(body(await engine.applyRetention({ now: enrolledAt + 29 * DAY }))).toEqual({ expired: [] });
    // 30 days and half a second after enrolling: the visitor expires, the member was seen later
    expect(body(await engine.applyRetention({ now: enrolledAt + 30 * DAY + 500 }))).toEqual({
      expired: [{ gallery_name: 'visitors', subject_id: 'obama', face_ids: [visitor.face_id] }],
    });
    expect(await engine.galleryView({ gallery_name: 'visitors' })).toMatchObject({ Errors: [{ ErrCode: 5004 }] });
    expect(body(await engine.galleryView({ gallery_name: 'members' })).subject_ids).toEqual(['obama']);
    // 30 days after it was seen: gone too
    const later = body(await engine.applyRetention({ now: Date.now() + 30 * DAY + 1000 }));
    expect(later.expired.map((e) => e.gallery_name)).toEqual(['members']);
    expect(await engine.galleryView({ gallery_name: 'members' })).toMatchObject({ Errors: [{ ErrCode: 5004 }] });
  });
});

describe('audit log', () => {
  it('records enroll, verify, recognize, export and remove without images or embeddings; the erased subject’s name leaves it', async () => {
    const image = await blobOf(obamaUrl);
    body(await engine.enroll({ image, subject_id: 'audited', gallery_name: 'front' }));
    body(await engine.verify({ image, subject_id: 'audited', gallery_name: 'front' }));
    body(await engine.recognize({ image, gallery_name: 'front' }));
    body(await engine.exportGallery({ gallery_name: 'front' }));
    let log = body(await engine.auditLog()).filter((e) => e.gallery === 'front');
    expect(log.map((e) => [e.event, e.gallery, e.subject])).toEqual([
      ['enroll', 'front', 'audited'],
      ['verify', 'front', 'audited'],
      ['recognize', 'front', 'audited'],
      ['export', 'front', undefined],
    ]);
    for (const e of log) expect(Object.keys(e).every((k) => ['at', 'appId', 'event', 'gallery', 'subject', 'count', 'erased'].includes(k))).toBe(true);
    body(await engine.forget({ gallery_name: 'front', subject_id: 'audited' }));
    log = body(await engine.auditLog()).filter((e) => e.gallery === 'front');
    expect(log.map((e) => [e.event, e.subject, e.erased])).toEqual([
      ['enroll', undefined, true],
      ['verify', undefined, true],
      ['recognize', undefined, true],
      ['export', undefined, undefined],
      ['remove', undefined, undefined],
    ]);
    expect(body(await engine.auditLog({ limit: 1 }))).toHaveLength(1);
  });
});
