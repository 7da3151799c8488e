// Request fuzz over every endpoint of the sync service: random methods, paths, queries,
// credentials and bodies (arbitrary JSON, not-JSON, and valid pushes with one field mutated).
// Every reply must be JSON of the endpoint's schema (2xx) or an error body (4xx), never a 5xx
// while the database is up, never a stack trace. Values PostgreSQL cannot store (past float32,
// NUL, lone surrogates, too deep) are each refused as a 400 naming the field; HEAD answers on
// every route.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ErrorBodySchema, GalleriesResponseSchema, GallerySettingsSchema, PullResponseSchema, PushResponseSchema } from '../../src/sync/protocol.ts';
import { freshDatabase, startService, type Service } from './helpers/service.ts';
import { enroll, MODEL } from './helpers/templates.ts';

const APP = { id: 'fuzz-app', key: 'fuzz-app-key' };
let service: Service;

beforeAll(async () => {
  service = await startService(await freshDatabase(), { apps: { [APP.id]: APP.key }, env: { SYNC_BODY_LIMIT: String(64 * 1024), SYNC_RATE_LIMIT: '100000', SYNC_IP_RATE_LIMIT: '100000' } });
});
afterAll(async () => service?.close());

const paths = fc.oneof(
  fc.constantFrom('/v1/push', '/v1/pull', '/v1/galleries', '/v1/events', '/v1/health', '/', '/v1/galleries/g', '/v1/galleries/%00', '/v1/galleries/' + 'x'.repeat(300), '/v1/galleries/' + 'y'.repeat(2000)),
  fc.string({ maxLength: 40 }).map((s) => '/v1/' + encodeURIComponent(s)),
);
const queries = fc.oneof(
  fc.constant(''),
  fc.record({ after: fc.oneof(fc.string({ maxLength: 25 }), fc.bigInt({ min: -10n, max: 10n ** 20n }).map(String)), limit: fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -5, max: 5000 }).map(String)), galleries: fc.string({ maxLength: 30 }) }, { requiredKeys: [] }).map((q) => '?' + new URLSearchParams(q as Record<string, string>).toString()),
  fc.constant('?after=1&after=2'),
);
const credentials = fc.constantFrom<Record<string, string>>({ app_id: APP.id, app_key: APP.key }, { 'x-app-id': APP.id, 'x-app-key': APP.key }, { app_id: APP.id, app_key: 'nope' }, {}, { app_id: '../../etc', app_key: 'x' });

/** Values a JSON body can carry that PostgreSQL cannot store as such (they made 500s once). */
const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });
const UNSTORABLE: unknown[] = [1e308, -3.5e38, 3.5e38, '\u0000', 'a\u0000b', '\ud800', 'x\udfff', deep(12)];

/** A valid push with one value somewhere replaced by an arbitrary (often unstorable) one. */
const mutatedPush = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...UNSTORABLE))).map(([at, value]) => {
  const body = { changes: [enroll('fuzz', 'alice'), { kind: 'remove_subject', change_id: `c-${at}`, gallery: 'fuzz', subject: 'bob' }] };
  let n = 0;
  const visit = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return n++ === at ? value : node;
    if (n++ === at) return value;
    if (Array.isArray(node)) return node.map(visit);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v)]));
  };
  return visit(body);
});
const bodies = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  mutatedPush.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constant('x'.repeat(70 * 1024)).map((s) => s), // over the body limit
);

const RUNS = Number(process.env.SYNC_FUZZ_RUNS ?? 250); // SYNC_FUZZ_RUNS=2000 for a longer look

it('every reply is well-formed JSON, never a 5xx, never a stack', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'), paths, queries, credentials, bodies, fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'), async (method, path, query, auth, body, type) => {
      const response = await fetch(service.url + path + query, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { 'content-type': type }) },
        ...(body === undefined || method === 'GET' || method === 'HEAD' ? {} : { body }),
        signal: AbortSignal.timeout(10_000),
      });
      if (response.headers.get('content-type')?.includes('text/event-stream')) {
        await response.body?.cancel();
        return;
      }
      const text = await response.text();
      expect(response.status, text.slice(0, 300)).toBeLessThan(500);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      if (method === 'HEAD') {
        expect(text).toBe('');
        return;
      }
      expect(text).not.toMatch(/\bstack\b|\n\s+at /);
      const json = JSON.parse(text) as unknown;
      if (response.status >= 400) expect(ErrorBodySchema.safeParse(json).success, text.slice(0, 300)).toBe(true);
      else if (path === '/v1/push') PushResponseSchema.parse(json);
      else if (path === '/v1/pull') PullResponseSchema.parse(json);
      else if (path === '/v1/galleries') GalleriesResponseSchema.parse(json);
      else if (path.startsWith('/v1/galleries/')) GallerySettingsSchema.parse(json);
    }),
    { numRuns: RUNS },
  );
}, Math.max(120_000, RUNS * 250));

const push = (body: unknown) =>
  fetch(`${service.url}/v1/push`, { method: 'POST', headers: { app_id: APP.id, app_key: APP.key, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });

it('refuses every unstorable value as a 400 naming the field', async () => {
  const plain = (payload: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ changes: [{ ...enroll(`new-${Math.random()}`, 'alice', extra as never), payload: { ...enroll('g', 's').payload, ...payload } }] });
  const cases: [string, unknown][] = [
    ['changes.0.payload.quality', plain({ quality: 1e308 })],
    ['changes.0.payload.quality', plain({ quality: 3.5e38 })],
    ['changes.0.payload.quality', plain({ quality: -3.5e38 })],
    ['changes.0.payload.box.width', plain({ box: { topLeftX: 0, topLeftY: 0, width: 1e39, height: 1 } })],
    ['changes.0.payload.attributes.note', plain({ attributes: { note: 'a\u0000b' } })],
    ['changes.0.payload.attributes.note', plain({ attributes: { note: '\ud800' } })],
    ['changes.0.payload.attributes.list.1', plain({ attributes: { list: ['ok', 'x\udc00'] } })],
    ['changes.0.payload.attributes', plain({ attributes: { ['k\u0000']: 1 } })],
    ['changes.0.payload.attributes', plain({ attributes: { ['\ud83d']: 1 } })],
    ['changes.0.payload.attributes', plain({ attributes: deep(12) as Record<string, unknown> })],
    ['changes.0.payload.attributes', plain({ attributes: { big: 'x'.repeat(20_000) } })],
    ['changes.0.model_id', plain({}, { model_id: 'm\u0000' })],
    ['changes.0.model_id', plain({}, { model_id: '\ud800' })],
    ['changes.0.gallery', { changes: [enroll('g\ud800', 'alice')] }],
    ['changes.0.subject', { changes: [enroll('g', '\udfffx')] }],
    ['changes.0.subject', { changes: [{ kind: 'remove_subject', change_id: 'c-nul', gallery: 'g', subject: 'a\u0000' }] }],
  ];
  for (const [path, body] of cases) {
    const response = await push(body);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(new RegExp(`^${path.replace(/\./g, '\\.')}[.:]`)) } });
  }
  // a surrogate pair is valid text, and a float32's largest value is a float32: both stored
  const fine = await push(plain({ quality: 3.4028234663852886e38, attributes: { name: '😀', nested: { a: [1, { b: 'ü' }] } } }, { model_id: MODEL }));
  expect(fine.status, await fine.clone().text()).toBe(200);
  expect(PushResponseSchema.parse(await fine.json()).results[0]).toMatchObject({ status: 'accepted' });
});

it('answers HEAD on every route, and another method on a route with 405 and allow', async () => {
  const auth = { app_id: APP.id, app_key: APP.key };
  for (const [path, status] of [['/v1/health', 200], ['/v1/pull', 200], ['/v1/galleries', 200], ['/v1/events', 200], ['/v1/push', 405], ['/v1/galleries/g', 405], ['/v1/nothing', 404]] as const) {
    const response = await fetch(service.url + path, { method: 'HEAD', headers: auth, signal: AbortSignal.timeout(5000) });
    expect(response.status, `HEAD ${path}`).toBe(status);
    expect(await response.text()).toBe('');
    if (status === 405) expect(response.headers.get('allow')).toMatch(/POST|PUT/);
  }
  expect((await fetch(service.url + '/v1/events', { method: 'HEAD', headers: auth })).headers.get('content-type')).toContain('text/event-stream');
  const wrong = await fetch(service.url + '/v1/push', { headers: auth });
  expect(wrong.status).toBe(405);
  expect(wrong.headers.get('allow')).toBe('POST');
  expect(await wrong.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
});
