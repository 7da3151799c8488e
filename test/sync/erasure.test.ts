// Erasure everywhere: engine.forget of a subject on device A, made while the service was
// unreachable, then synced. Afterwards no object store of any IndexedDB database of the origin,
// on A or on device B, holds the subject's name, template ids, embedding or photo; A's search
// no longer finds it; the service's rows of it hold no biometric data; erasureStatus said
// 'queued' until the service acknowledged, then 'erased'.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ErasureStatus } from '../../src/service/privacy.ts';
import { startWorld, type Pages, type World } from './helpers/pages.ts';
import { ROOT, type Service } from './helpers/service.ts';

const FACES = path.resolve(ROOT, '../shared/data/faces');
const ERIN_PHOTO = readFileSync(path.join(FACES, 'obama/obama.jpg'));
const KEEP_PHOTO = readFileSync(path.join(FACES, 'biden/biden.jpg'));
const APP = { id: 'erasure-team', key: 'erasure-team-key' };
const GALLERY = 'members';
const ERIN = 'erin-7f3a9c';
const KEEP = 'keep-51d2e8';

let service: Service;
let pages: Pages;

let world: World | undefined;
beforeAll(async () => {
  ({ service, pages } = world = await startWorld(APP));
}, 180_000);
afterAll(() => world?.close());

/** 16-byte runs of `bytes` as hex, every `step` bytes: any one of them found in a dump is a trace */
const runs = (bytes: Uint8Array, step = 16) => Array.from({ length: Math.floor(bytes.length / step) }, (_, i) => Buffer.from(bytes.subarray(i * step, i * step + 16)).toString('hex'));

it('forget: no trace of the subject in any IndexedDB store of either device, nor in the service’s biometric columns', async () => {
  const sync = { url: service.url, appId: APP.id, appKey: APP.key, photos: true };
  const [a, b] = await Promise.all([pages.open(sync), pages.open(sync)]);
  const erinIds = [
    (await a.call<{ face_id: string }>('enroll', GALLERY, ERIN, ERIN_PHOTO.toString('base64'))).face_id,
    (await a.call<{ face_id: string }>('enroll', GALLERY, ERIN, ERIN_PHOTO.toString('base64'))).face_id,
  ];
  const keepId = (await a.call<{ face_id: string }>('enroll', GALLERY, KEEP, KEEP_PHOTO.toString('base64'))).face_id;
  await a.call('syncNow');
  await b.call('syncNow');
  expect(await b.call<string[]>('templateIds', GALLERY)).toEqual([...erinIds, keepId].sort());
  const file = await a.call<{ subjects: { subject_id: string; templates: { embedding: string }[] }[] }>('exportGallery', GALLERY);
  const embeddings = file.subjects.find((s) => s.subject_id === ERIN)!.templates.map((t) => Buffer.from(t.embedding, 'base64'));
  // (runs both photos share — JPEG headers, a photographer's notice — are no trace of this one)
  const keptPhoto = KEEP_PHOTO.toString('hex');
  const traces = [ERIN, ...erinIds, ...embeddings.flatMap((e) => runs(e)), ...runs(ERIN_PHOTO, 997).filter((r) => !keptPhoto.includes(r))];

  // erased while the service is unreachable: queued, then acknowledged
  const reach = `${service.url}/**`;
  await a.context.route(reach, (route) => route.abort('internetdisconnected'));
  const forgot = await a.call<{ removed_face_ids: string[] }>('forget', { gallery_name: GALLERY, subject_id: ERIN });
  expect(forgot.removed_face_ids.sort()).toEqual([...erinIds].sort());
  expect(await a.call<ErasureStatus>('erasureStatus', { gallery_name: GALLERY, subject_id: ERIN })).toMatchObject({ local: 'erased', service: 'queued' });
  await a.context.unroute(reach);
  await a.call('syncNow');
  expect(await a.call<ErasureStatus>('erasureStatus', { gallery_name: GALLERY, subject_id: ERIN })).toMatchObject({ local: 'erased', service: 'erased' });
  expect(await a.call<ErasureStatus>('erasureStatus', { gallery_name: GALLERY, subject_id: KEEP })).toMatchObject({ local: 'present' });
  await b.call('syncNow');

  for (const [device, client] of [['A', a], ['B', b]] as const) {
    const dump = await client.call<string>('dumpIndexedDB');
    // the dump sees the stores: the subject kept is in it
    expect(dump, device).toContain(KEEP);
    expect(dump, device).toContain(keepId);
    expect(dump, device).toContain(runs(KEEP_PHOTO, 997)[1]);
    for (const trace of traces) expect(dump.includes(trace), `${device} still holds ${trace.slice(0, 40)}`).toBe(false);
  }
  // the search index dropped the rows: the photo finds nobody named ERIN
  const answer = await a.call<{ images: { candidates?: { subject_id: string }[] }[] }>('recognize', GALLERY, ERIN_PHOTO.toString('base64'));
  expect(JSON.stringify(answer)).not.toContain(ERIN);

  // a gallery's retention counted from enrollment reaches the service with the next sync
  await a.call('setGalleryOptions', { gallery_name: GALLERY, retention: { days: 365, from: 'enrolled' } });
  await a.call('syncNow');
  expect((await service.pool.query('select retention_days from galleries where app_id = $1 and gallery = $2', [APP.id, GALLERY])).rows).toEqual([{ retention_days: 365 }]);

  const rows = await service.pool.query('select embedding, photo, sealed, box, attributes, quality, removed_seq from templates where app_id = $1 and template_id = any($2)', [APP.id, erinIds]);
  expect(rows.rowCount).toBe(2);
  for (const row of rows.rows) expect(row).toMatchObject({ embedding: null, photo: null, sealed: null, box: null, attributes: null, quality: null, removed_seq: expect.any(String) });
});
