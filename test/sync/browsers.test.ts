// Two (and more) real Chromium pages with the engine and sync on, one sync service on real
// PostgreSQL: enrolls and removals cross between them live (printed: typically under 0.5 s), an offline browser's
// enrolls arrive when it is back, and they end with the same template ids. With a team
// passphrase the database holds no embedding, photo or subject name in clear; a browser with
// the passphrase converges and one without gets a clear error. A killed service is reported
// `offline` within seconds, and the browsers catch up within seconds of its return.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncOptionsInput, SyncStatus } from '../../src/sync/index.ts';
import { createServer as createNetServer } from 'node:net';
import { startWorld, until, type Client, type Pages, type World } from './helpers/pages.ts';
import { ROOT, spawnService, type Service, type ServiceProcess } from './helpers/service.ts';

const FACES = path.resolve(ROOT, '../shared/data/faces');
const photo = (file: string) => readFileSync(path.join(FACES, file)).toString('base64');
const OBAMA = photo('obama/obama.jpg');
const OBAMA_2 = photo('obama/obama2.jpg');
const APP = { id: 'team', key: 'team-key-123' };
/**
 * Bound of a change's live delivery (the event stream, or the retries after an outage): far below
 * the 30 s poll, so it fails if only the poll delivers, yet loose enough for a busy CI machine;
 * the measured times are printed (typically 150–500 ms).
 */
const LIVE_MS = 8000;

let service: Service;
let pages: Pages;
let databaseUrl: string;

const client = (sync: Partial<SyncOptionsInput> | undefined): Promise<Client> =>
  pages.open(sync && { url: service.url, appId: APP.id, appKey: APP.key, ...sync });

let world: World | undefined;
beforeAll(async () => {
  ({ service, pages, databaseUrl } = world = await startWorld(APP));
}, 180_000);
afterAll(() => world?.close());

describe('two browsers, one gallery', () => {
  let a: Client;
  let b: Client;
  const gallery = 'front-desk';

  it('enroll in A → B recognises it live (the event stream, not the poll); remove in B → gone in A live', async () => {
    [a, b] = await Promise.all([client({}), client({})]);
    // B loads its models first (a recognise in an empty gallery is the cheapest way), so the 2 s measure sync, not model loading
    await b.call('recognize', 'warm-up', OBAMA);
    const enrolled = await a.call<{ face_id: string }>('enroll', gallery, 'obama', OBAMA);
    expect(enrolled).toHaveProperty('face_id');
    const ms = await until(async () => (await b.call<string[]>('templateIds', gallery)).includes(enrolled.face_id), LIVE_MS, 'B has the template');
    const answer = await b.call<{ images: { candidates?: { subject_id: string }[] }[] }>('recognize', gallery, OBAMA_2);
    expect(answer.images[0]?.candidates?.[0]?.subject_id).toBe('obama');
    console.log(`sync: A's enroll searchable in B after ${ms.toFixed(0)} ms`);
    // photos stay home unless a gallery asks for them: B has the template, not the photo
    expect(await b.call<number | null>('photoBytes', gallery, 'obama', enrolled.face_id)).toBeNull();
    expect(await a.call<number | null>('photoBytes', gallery, 'obama', enrolled.face_id)).toBeGreaterThan(1000);

    await b.call('removeSubject', gallery, 'obama');
    const gone = await until(async () => (await a.call<string[]>('templateIds', gallery)).length === 0, LIVE_MS, 'A lost the template');
    console.log(`sync: B's removal gone from A after ${gone.toFixed(0)} ms`);
    const status = await a.call<SyncStatus>('status');
    expect(status).toMatchObject({ enabled: true, error: null, live: true });
  });

  it('a change the service could never store (a lone surrogate in a subject id) is dropped with a warning; the rest goes on', async () => {
    const odd = 'odd-names';
    const bad = await a.call<{ face_id: string }>('enroll', odd, 'lone-\ud800', OBAMA);
    const fine = await a.call<{ face_id: string }>('enroll', odd, 'fine', OBAMA);
    await until(async () => (await b.call<string[]>('templateIds', odd)).includes(fine.face_id), 10_000, 'B has the template after the unsendable one');
    expect(await b.call<string[]>('templateIds', odd)).not.toContain(bad.face_id);
    const status = await a.call<SyncStatus>('status');
    expect(status.pending).toBe(0);
    expect(status.warnings.some((w) => w.code === 'REJECTED' && w.message.includes('subject') && w.message.includes('surrogate'))).toBe(true);
  });

  it('B offline enrolls 20, back online → A has them; both end with the same template ids', async () => {
    await b.call('enroll', 'warm-up', 'w', OBAMA); // enroll's models are loaded before the network goes
    await b.context.setOffline(true);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await b.call<{ face_id: string }>('enroll', gallery, `person-${i}`, i % 2 ? OBAMA : OBAMA_2)).face_id);
    await b.call('syncNow');
    const offline = await b.call<SyncStatus>('status');
    expect(offline.state).toBe('offline');
    expect(offline.pending).toBeGreaterThanOrEqual(20);
    expect(await a.call<string[]>('templateIds', gallery)).toEqual([]);

    await b.context.setOffline(false);
    await until(async () => (await a.call<string[]>('templateIds', gallery)).length === 20, 30_000, 'A has the 20 templates');
    await until(async () => (await b.call<SyncStatus>('status')).pending === 0, 10_000, 'B pushed everything');
    const [inA, inB] = await Promise.all([a.call<string[]>('templateIds', gallery), b.call<string[]>('templateIds', gallery)]);
    expect(inA).toEqual(ids.sort());
    expect(inB).toEqual(inA);
    const rows = await service.pool.query<{ template_id: string }>('select template_id from templates where gallery = $1 and removed_seq is null order by template_id', [gallery]);
    expect(rows.rows.map((r) => r.template_id)).toEqual(inA);
  });

  it('the outbox survives the app closing while the service is unreachable', async () => {
    // only the service is unreachable: the page's own files still load for the restart
    const blocked = `${service.url}/**`;
    await b.context.route(blocked, (route) => route.abort('internetdisconnected'));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await b.call<{ face_id: string }>('enroll', gallery, `late-${i}`, OBAMA)).face_id);
    await until(async () => (await b.call<SyncStatus>('status')).pending >= 3, 5000, 'the enrolls are in the outbox');
    await b.call('restart', { url: service.url, appId: APP.id, appKey: APP.key });
    await b.context.unroute(blocked);
    await until(async () => {
      const inA = new Set(await a.call<string[]>('templateIds', gallery));
      return ids.every((id) => inA.has(id));
    }, 30_000, 'A has the enrolls B made before its restart');
  });

  it('templates enrolled while sync was off are shared once it is on', async () => {
    await b.call('restart', undefined);
    const before = (await b.call<{ face_id: string }>('enroll', gallery, 'enrolled-without-sync', OBAMA)).face_id;
    await b.call('restart', { url: service.url, appId: APP.id, appKey: APP.key });
    await until(async () => (await a.call<string[]>('templateIds', gallery)).includes(before), 30_000, 'A has the template B enrolled with sync off');
    const [inA, inB] = await Promise.all([a.call<string[]>('templateIds', gallery), b.call<string[]>('templateIds', gallery)]);
    expect(inB).toEqual(inA);
  });
});

describe('end-to-end encrypted gallery', () => {
  const gallery = 'secret-team';
  const passphrase = 'correct horse battery staple';

  it('the database holds no embedding, photo or subject name in clear; the same passphrase converges; none or a wrong one is a clear error', async () => {
    const c = await client({ passphrase, photos: [gallery] });
    const enrolled = await c.call<{ face_id: string }>('enroll', gallery, 'barack', OBAMA);
    await c.call('syncNow');
    expect((await c.call<SyncStatus>('status')).error).toBeNull();

    // what the service stored: only ciphertext, an opaque subject tag, no photo
    const rows = await service.pool.query('select subject, embedding, photo, sealed from templates where gallery = $1', [gallery]);
    expect(rows.rowCount).toBe(1);
    const row = rows.rows[0] as { subject: string; embedding: Buffer | null; photo: Buffer | null; sealed: Buffer };
    expect(row.embedding).toBeNull();
    expect(row.photo).toBeNull();
    expect(row.subject).not.toContain('barack');
    const file = await c.call<{ subjects: { templates: { embedding: string }[] }[] }>('exportGallery', gallery);
    const embedding = Buffer.from(file.subjects[0]!.templates[0]!.embedding, 'base64');
    const jpeg = Buffer.from(OBAMA, 'base64');
    // no 16-byte run of the embedding or of the photo anywhere in this gallery's stored rows and log
    // (other galleries of this file hold the same photo's embedding in clear, on purpose)
    const dump = Buffer.concat(
      (
        await service.pool.query(
          `select convert_to(t::text, 'UTF8') as bytes from templates t where gallery = $1
           union all select convert_to(c::text, 'UTF8') from changes c where gallery = $1
           union all select convert_to(g::text, 'UTF8') from galleries g where gallery = $1`,
          [gallery],
        )
      ).rows.map((r: { bytes: Buffer }) => r.bytes),
    );
    expect(dump.length).toBeGreaterThan(1000); // the sealed row is there: the search below has something to search
    const hexDump = dump.toString('latin1');
    for (let i = 0; i + 16 <= embedding.length; i += 16) expect(hexDump).not.toContain(embedding.subarray(i, i + 16).toString('hex'));
    for (const at of [0, 1000, 5000]) expect(hexDump).not.toContain(jpeg.subarray(at, at + 16).toString('hex'));
    expect(hexDump).not.toContain('barack');

    const d = await client({ passphrase });
    await until(async () => (await d.call<string[]>('templateIds', gallery)).includes(enrolled.face_id), 20_000, 'D decrypted the template');
    const answer = await d.call<{ images: { candidates?: { subject_id: string }[] }[] }>('recognize', gallery, OBAMA_2);
    expect(answer.images[0]?.candidates?.[0]?.subject_id).toBe('barack');
    // C shares this gallery's photos (inside the ciphertext): D has the very photo
    expect(await d.call<number | null>('photoBytes', gallery, 'barack', enrolled.face_id)).toBe(Buffer.from(OBAMA, 'base64').length);

    const without = await client({});
    const wrong = await client({ passphrase: 'not the passphrase' });
    for (const [who, code] of [
      [without, 'PASSPHRASE_REQUIRED'],
      [wrong, 'WRONG_PASSPHRASE'],
    ] as const) {
      await until(async () => (await who.call<SyncStatus>('status')).error?.code === code, 20_000, `${code} reported`);
      const status = await who.call<SyncStatus>('status');
      expect(status.error?.message).toContain(gallery);
      expect(await who.call<string[]>('templateIds', gallery)).toEqual([]);
    }
    // the sealed gallery is held back, not the others: the gallery in clear arrived all the same
    const plain = (await service.pool.query<{ template_id: string }>(`select template_id from templates where gallery = 'front-desk' and removed_seq is null order by template_id`)).rows.map((r) => r.template_id);
    await until(async () => JSON.stringify(await without.call<string[]>('templateIds', 'front-desk')) === JSON.stringify(plain), 20_000, 'the clear gallery reached the browser without the passphrase');
    // given the passphrase later, the held-back gallery is caught up from where it stopped
    await without.call('restart', { url: service.url, appId: APP.id, appKey: APP.key, passphrase });
    await until(async () => (await without.call<string[]>('templateIds', gallery)).includes(enrolled.face_id), 30_000, 'the held gallery caught up');
    expect((await without.call<SyncStatus>('syncNow')).error).toBeNull();
  });
});

describe('the service goes away and comes back', () => {
  let proc: ServiceProcess | undefined;
  afterAll(async () => proc?.stop('SIGKILL'));

  it('a killed service is reported offline within seconds; the browsers catch up within seconds of its return', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createNetServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    proc = await spawnService(databaseUrl, port);
    const gallery = 'restarts';
    // only this gallery: the sealed one of the tests above would hold them in PASSPHRASE_REQUIRED, never idle
    const [a, b] = await Promise.all([client({ url: proc.url, galleries: [gallery] }), client({ url: proc.url, galleries: [gallery] })]);
    await b.call('recognize', 'warm-up', OBAMA);
    await a.call('enroll', 'warm-up', 'w', OBAMA);
    for (const c of [a, b]) await until(async () => (await c.call<SyncStatus>('status')).live, 10_000, 'the event stream is open');

    await proc.stop('SIGKILL');
    const killedAt = performance.now();
    const offline = (c: Client) =>
      until(async () => {
        const s = await c.call<SyncStatus>('status');
        return s.state === 'offline' && s.error?.code === 'OFFLINE' && !s.live;
      }, 10_000, 'offline reported');
    const [offlineA, offlineB] = await Promise.all([offline(a), offline(b)]);
    // an enroll made while it is down waits in A's outbox; the outage outlasts the retries' first doublings (old: 1, 2, 4, 8 s)
    const enrolled = await a.call<{ face_id: string }>('enroll', gallery, 'obama', OBAMA);
    await new Promise((r) => setTimeout(r, Math.max(0, 12_000 - (performance.now() - killedAt))));
    expect((await b.call<SyncStatus>('status')).state).toBe('offline');

    proc = await spawnService(databaseUrl, port);
    const caughtUp = await until(async () => (await b.call<string[]>('templateIds', gallery)).includes(enrolled.face_id), LIVE_MS, "B has A's enroll");
    await until(async () => (await a.call<SyncStatus>('status')).state === 'idle' && (await b.call<SyncStatus>('status')).live, LIVE_MS, 'idle and live again');
    console.log(`sync: service killed → offline reported after ${offlineA.toFixed(0)} / ${offlineB.toFixed(0)} ms (A / B); back after 12 s → B had A's enroll ${caughtUp.toFixed(0)} ms after the service served again`);
  });
});
