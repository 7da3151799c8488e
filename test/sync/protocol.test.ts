// The sync service's protocol and security, against real PostgreSQL and real service
// instances (two of them on one database, as a deployment behind a proxy would run).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema, PullResponseSchema, PushResponseSchema, type Change } from '../../src/sync/protocol.ts';
import { freshDatabase, headers, startService, type Service } from './helpers/service.ts';
import { embeddingBase64, enroll, MODEL } from './helpers/templates.ts';

const A = { id: 'app-a', key: 'key-of-app-a' };
const B = { id: 'app-b', key: 'key-of-app-b' };
let one: Service;
let two: Service;

async function call(service: Service, method: string, path: string, app: { id: string; key: string } | undefined, body?: unknown) {
  const response = await fetch(service.url + path, {
    method,
    headers: app ? headers(app.id, app.key) : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const push = async (service: Service, app: typeof A, changes: Change[]) => {
  const r = await call(service, 'POST', '/v1/push', app, { changes });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return PushResponseSchema.parse(r.body).results;
};
const pullAll = async (service: Service, app: typeof A, after = '0', galleries?: string) => {
  const r = await call(service, 'GET', `/v1/pull?after=${after}${galleries ? `&galleries=${encodeURIComponent(galleries)}` : ''}`, app);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return PullResponseSchema.parse(r.body);
};
const errorCode = (body: unknown) => ErrorBodySchema.parse(body).error.code;

beforeAll(async () => {
  const db = await freshDatabase();
  one = await startService(db, { apps: { [A.id]: A.key, [B.id]: B.key }, env: { SYNC_BODY_LIMIT: String(256 * 1024) } });
  two = await startService(db);
});
afterAll(async () => {
  await one?.close();
  await two?.close();
});

describe('authentication', () => {
  it('refuses a missing, unknown or wrong app_id/app_key with 401 and a JSON body', async () => {
    for (const app of [undefined, { id: A.id, key: 'wrong-key!' }, { id: 'nobody', key: A.key }, { id: A.id, key: B.key }]) {
      const r = await call(one, 'GET', '/v1/pull', app);
      expect(r.status).toBe(401);
      expect(errorCode(r.body)).toBe('UNAUTHORIZED');
    }
    expect((await call(one, 'GET', '/v1/pull', A)).status).toBe(200);
  });

  it('stores keys hashed, never in clear', async () => {
    const rows = await one.pool.query<{ key_hash: Buffer }>('select key_hash from apps');
    for (const row of rows.rows) expect(row.key_hash.toString('latin1')).not.toContain('key-of-app');
  });
});

describe('push and pull', () => {
  it('enrolls, then pulls from any process in seq order with payloads intact', async () => {
    const gallery = `g-${randomUUID()}`;
    const changes = [enroll(gallery, 'alice'), enroll(gallery, 'bob')];
    const results = await push(one, A, changes);
    expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted']);
    const pulled = await pullAll(two, A, '0', gallery);
    expect(pulled.changes.map((c) => c.kind === 'enroll' && c.template_id)).toEqual(changes.map((c) => c.kind === 'enroll' && c.template_id));
    const first = pulled.changes[0]!;
    expect(first.kind === 'enroll' && first.payload).toEqual(changes[0]!.kind === 'enroll' && changes[0]!.payload);
  });

  it('answers a replayed push with the same results and changes nothing', async () => {
    const gallery = `g-${randomUUID()}`;
    const changes: Change[] = [enroll(gallery, 'alice'), enroll(gallery, 'alice')];
    changes.push({ kind: 'remove_template', change_id: randomUUID(), gallery, subject: 'alice', template_id: (changes[0] as { template_id: string }).template_id });
    const first = await push(one, A, changes);
    const logged = Number((await one.pool.query('select count(*) from changes')).rows[0].count);
    const again = await push(two, A, changes);
    expect(again).toEqual(first);
    expect(Number((await one.pool.query('select count(*) from changes')).rows[0].count)).toBe(logged);
    // the same template id under a new change id is not a replay: refused
    const dup = await push(one, A, [{ ...(changes[1] as Extract<Change, { kind: 'enroll' }>), change_id: randomUUID() }]);
    expect(dup[0]!.status === 'rejected' && dup[0]!.error.code).toBe('DUPLICATE_TEMPLATE');
  });

  it('refuses a template of another embedding model version, and a plain one into a sealed gallery', async () => {
    const gallery = `g-${randomUUID()}`;
    await push(one, A, [enroll(gallery, 'alice')]);
    const [other] = await push(one, A, [enroll(gallery, 'bob', { model_id: 'faceapi-recognition@2.0.0' })]);
    expect(other!.status === 'rejected' && other!.error.code).toBe('MODEL_MISMATCH');
    expect(other!.status === 'rejected' && other!.error.message).toContain('faceapi-recognition@2.0.0');

    const sealedGallery = `s-${randomUUID()}`;
    const encryption = { scheme: 'pbkdf2-sha256/aes-256-gcm', salt: Buffer.alloc(16, 1).toString('base64'), iterations: 200_000, check: Buffer.alloc(28, 2).toString('base64') };
    const put = await call(one, 'PUT', `/v1/galleries/${sealedGallery}`, A, { encryption });
    expect(put.status).toBe(200);
    // the first writer's settings stand
    const second = await call(two, 'PUT', `/v1/galleries/${sealedGallery}`, A, { encryption: null });
    expect((second.body as { encryption: unknown }).encryption).toEqual(encryption);
    const [plain] = await push(one, A, [enroll(sealedGallery, 'alice')]);
    expect(plain!.status === 'rejected' && plain!.error.code).toBe('ENCRYPTION_MISMATCH');
    const [sealed] = await push(one, A, [enroll(sealedGallery, 'tag', { payload: { mode: 'sealed', data: Buffer.alloc(64, 7).toString('base64') } })]);
    expect(sealed!.status).toBe('accepted');
  });

  it('tombstones: a removal takes the templates before it in seq order, empties their biometric columns, and later enrolls survive', async () => {
    const gallery = `g-${randomUUID()}`;
    const early = [enroll(gallery, 'alice'), enroll(gallery, 'alice')];
    const [e1, e2] = await push(one, A, early);
    const removal = await push(two, A, [{ kind: 'remove_subject', change_id: randomUUID(), gallery, subject: 'alice' }]);
    const late = enroll(gallery, 'alice');
    await push(one, A, [late]);
    expect(removal[0]!.status === 'accepted' && removal[0]!.removed?.sort()).toEqual(early.map((c) => c.template_id).sort());
    const rows = await one.pool.query('select template_id, embedding, photo, removed_seq from templates where gallery = $1 order by enroll_seq', [gallery]);
    expect(rows.rows.map((r) => [r.embedding === null, r.removed_seq !== null])).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
    // pulled from the start: the removed enrolls are skipped (their data never leaves again), the removal and the late enroll come
    const pulled = await pullAll(one, A, '0', gallery);
    expect(pulled.changes.map((c) => c.kind)).toEqual(['remove', 'enroll']);
    // a client that had pulled the early ones sees the removal with their ids
    const after = String(Math.max(e1!.status === 'accepted' ? e1!.seq : 0, e2!.status === 'accepted' ? e2!.seq : 0));
    const next = await pullAll(two, A, after, gallery);
    expect(next.changes[0]).toMatchObject({ kind: 'remove', scope: 'subject', subject: 'alice' });
    // removing what is already gone is accepted and removes nothing (offline devices converge)
    const [again] = await push(one, A, [{ kind: 'remove_subject', change_id: randomUUID(), gallery, subject: 'nobody' }]);
    expect(again!.status === 'accepted' && again!.removed).toEqual([]);
    // removing the gallery takes the rest
    const [gone] = await push(one, A, [{ kind: 'remove_gallery', change_id: randomUUID(), gallery }]);
    expect(gone!.status === 'accepted' && gone!.removed).toEqual([late.template_id]);
  });

  it('a batch mixing enrolls and removals applies in order, a change repeated inside it is answered once', async () => {
    const gallery = `mix-${randomUUID()}`;
    const [e1, e2, e3] = [enroll(gallery, 'alice'), enroll(gallery, 'alice'), enroll(gallery, 'alice')];
    const removal: Change = { kind: 'remove_subject', change_id: randomUUID(), gallery, subject: 'alice' };
    const results = await push(one, A, [e1!, e2!, removal, e3!, e1!, { ...e3!, change_id: randomUUID() }]);
    expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'rejected']);
    expect(results[2]!.status === 'accepted' && results[2]!.removed?.sort()).toEqual([e1!.template_id, e2!.template_id].sort());
    expect(results[4]).toEqual(results[0]);
    const seqs = results.slice(0, 4).map((r) => (r.status === 'accepted' ? r.seq : 0));
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const pulled = await pullAll(two, A, '0', gallery);
    expect(pulled.changes.map((c) => (c.kind === 'enroll' ? c.template_id : c.kind))).toEqual(['remove', e3!.template_id]);
    const live = await one.pool.query('select live_templates from subjects where gallery = $1', [gallery]);
    expect(live.rows).toEqual([{ live_templates: 1 }]);
  });

  it('pages: limit, cursor, more and what remains after each', async () => {
    const gallery = `p-${randomUUID()}`;
    await push(one, A, Array.from({ length: 7 }, (_, i) => enroll(gallery, `s${i}`)));
    const seen: string[] = [];
    const remaining: (number | undefined)[] = [];
    let cursor = '0';
    let pages = 0;
    for (;;) {
      const r = await call(one, 'GET', `/v1/pull?after=${cursor}&limit=3&galleries=${gallery}`, A);
      const page = PullResponseSchema.parse(r.body);
      seen.push(...page.changes.map((c) => (c.kind === 'enroll' ? c.subject : '')));
      remaining.push(page.remaining);
      cursor = page.cursor;
      pages++;
      if (!page.more) break;
    }
    expect(seen).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6']);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(remaining).toEqual([4, 1, 0]);
  });

  it('a big pull page is gzip-compressed when the client takes it, the same JSON either way', async () => {
    const gallery = `z-${randomUUID()}`;
    await push(one, A, Array.from({ length: 40 }, (_, i) => enroll(gallery, `s${i}`)));
    const page = async (encoding: string) => {
      const response = await fetch(`${one.url}/v1/pull?galleries=${gallery}`, { headers: { ...headers(A.id, A.key), 'accept-encoding': encoding } });
      return { encoding: response.headers.get('content-encoding'), body: PullResponseSchema.parse(await response.json()) };
    };
    const zipped = await page('gzip, deflate');
    const plain = await page('identity');
    expect(zipped.encoding).toBe('gzip');
    expect(plain.encoding).toBeNull();
    expect((await page('gzip;q=0')).encoding).toBeNull();
    expect(zipped.body).toEqual(plain.body);
    expect(plain.body.changes).toHaveLength(40);
  });
});

describe('isolation and bad requests', () => {
  it('an app never sees or touches another app’s data', async () => {
    const gallery = `iso-${randomUUID()}`;
    const [mine] = await push(one, A, [enroll(gallery, 'alice')]);
    expect(mine!.status).toBe('accepted');
    const theirs = await pullAll(one, B, '0');
    expect(theirs.changes.some((c) => c.gallery === gallery)).toBe(false);
    const templateId = (await one.pool.query('select template_id from templates where gallery = $1', [gallery])).rows[0].template_id as string;
    const [foreign] = await push(one, B, [{ kind: 'remove_template', change_id: randomUUID(), gallery, subject: 'alice', template_id: templateId }]);
    expect(foreign!.status === 'rejected' && foreign!.error.code).toBe('TEMPLATE_NOT_FOUND');
    const [subject] = await push(one, B, [{ kind: 'remove_subject', change_id: randomUUID(), gallery, subject: 'alice' }]);
    expect(subject!.status === 'accepted' && subject!.removed).toEqual([]);
    expect((await one.pool.query('select removed_seq from templates where template_id = $1', [templateId])).rows[0].removed_seq).toBeNull();
    // the same change id in another app is another change
    const [reused] = await push(one, B, [enroll(gallery, 'alice', { change_id: mine!.change_id })]);
    expect(reused!.status).toBe('accepted');
  });

  it('answers wrong types, bad cursors, huge bodies and unknown routes with clear error bodies', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/v1/push', { changes: 'no' }, 400, 'BAD_REQUEST'],
      ['POST', '/v1/push', { changes: [] }, 400, 'BAD_REQUEST'],
      ['POST', '/v1/push', { changes: [{ ...enroll('g', 's'), payload: { mode: 'plain', embedding: 'not base64!' } }] }, 400, 'BAD_REQUEST'],
      ['POST', '/v1/push', { changes: [enroll('g', 's', { payload: { mode: 'plain', embedding: Buffer.from([0, 0, 0xc0, 0x7f]).toString('base64'), box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 }, quality: 1, attributes: {} } })] }, 200, ''],
      ['POST', '/v1/push', '{"changes": [', 400, 'BAD_REQUEST'],
      ['POST', '/v1/push', { changes: [enroll('g', 's', { payload: { mode: 'plain', embedding: embeddingBase64(60_000), box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 }, quality: 1, attributes: {} } })] }, 413, 'BODY_TOO_LARGE'],
      ['GET', '/v1/pull?after=-1', undefined, 400, 'BAD_CURSOR'],
      ['GET', '/v1/pull?after=1e9', undefined, 400, 'BAD_CURSOR'],
      ['GET', '/v1/pull?after=99999999999', undefined, 409, 'CURSOR_AHEAD'],
      ['GET', '/v1/pull?limit=0', undefined, 400, 'BAD_REQUEST'],
      ['PUT', '/v1/galleries/x', { encryption: { scheme: 'rot13' } }, 400, 'BAD_REQUEST'],
      ['GET', '/v1/nothing', undefined, 404, 'NOT_FOUND'],
      ['DELETE', '/v1/push', {}, 405, 'METHOD_NOT_ALLOWED'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const r = await call(one, method, path, A, body);
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(status);
      if (code) expect(errorCode(r.body)).toBe(code);
      // a NaN in an embedding is found only when the change is applied: that change is rejected
      else expect(PushResponseSchema.parse(r.body).results[0]).toMatchObject({ status: 'rejected', error: { code: 'BAD_REQUEST' } });
    }
  });
});

describe('limits and live nudges', () => {
  it('rate-limits per app with a 429 body, counting only authenticated requests', async () => {
    const db = await freshDatabase();
    const tight = await startService(db, { apps: { [A.id]: A.key }, env: { SYNC_RATE_LIMIT: '5' } });
    try {
      // someone sending A's app_id with a wrong key does not use up A's budget
      for (let i = 0; i < 8; i++) expect((await call(tight, 'GET', '/v1/pull', { id: A.id, key: 'not-the-key' })).status).toBe(401);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await call(tight, 'GET', '/v1/pull', A);
        statuses.push(r.status);
        if (r.status === 429) expect(errorCode(r.body)).toBe('RATE_LIMITED');
      }
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
    } finally {
      await tight.close();
    }
  });

  it('SYNC_GLOBAL_RATE_LIMIT counts an app\'s requests across processes, in PostgreSQL', async () => {
    const db = await freshDatabase();
    const env = { SYNC_GLOBAL_RATE_LIMIT: '5' };
    const p1 = await startService(db, { apps: { [A.id]: A.key }, env });
    const p2 = await startService(db, { env });
    try {
      // the window is PostgreSQL's minute: not across its end
      const { rows } = await p1.pool.query<{ s: number }>('select extract(second from now())::float8 as s');
      if (rows[0]!.s > 57) await new Promise((r) => setTimeout(r, (61 - rows[0]!.s) * 1000));
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await call(i % 2 ? p2 : p1, 'GET', '/v1/pull', A);
        statuses.push(r.status);
        if (r.status === 429) expect(errorCode(r.body)).toBe('RATE_LIMITED');
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    } finally {
      await p1.close();
      await p2.close();
    }
  });

  it('a push to one process nudges an event stream on another (LISTEN/NOTIFY; printed: typically well under a second)', async () => {
    const controller = new AbortController();
    const response = await fetch(`${two.url}/v1/events`, { headers: headers(A.id, A.key), signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': ready')) text += decoder.decode((await reader.read()).value);
    const began = performance.now();
    const [r] = await push(one, A, [enroll(`n-${randomUUID()}`, 'alice')]);
    while (!text.includes('event: change')) text += decoder.decode((await reader.read()).value);
    const ms = performance.now() - began;
    controller.abort();
    // without the NOTIFY it never comes (no server-side poll): the bound only spares a busy machine
    console.log(`sync: a push to one process nudged another's event stream after ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(5000);
    expect(text).toContain(`"seq":${r!.status === 'accepted' ? r!.seq : -1}`);
    // and an unauthenticated stream is refused like any request
    expect((await fetch(`${two.url}/v1/events`)).status).toBe(401);
  });

  it('concurrent pushes to two processes: every change lands once, in one order all readers agree on', async () => {
    const gallery = `c-${randomUUID()}`;
    const batches = Array.from({ length: 12 }, (_, i) => Array.from({ length: 5 }, (_, j) => enroll(gallery, `s${i}-${j}`)));
    await Promise.all(batches.map((changes, i) => push(i % 2 ? one : two, A, changes)));
    const fromOne = await pullAll(one, A, '0', gallery);
    const fromTwo = await pullAll(two, A, '0', gallery);
    expect(fromOne.changes).toEqual(fromTwo.changes);
    const ids = fromOne.changes.map((c) => (c.kind === 'enroll' ? c.template_id : ''));
    expect(new Set(ids).size).toBe(60);
    expect(ids.sort()).toEqual(batches.flat().map((c) => c.template_id).sort());
    expect(MODEL).toBeTruthy();
  });
});
