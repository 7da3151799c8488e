// Request fuzz over every endpoint of the sync service: random methods, paths, queries,
// credentials and bodies (arbitrary JSON, not-JSON, and valid pushes with one field mutated).
// Every reply must be JSON of the endpoint's schema (2xx) or an error body (4xx), never a 5xx
// while the database is up, never a stack trace.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ErrorBodySchema, GalleriesResponseSchema, GallerySettingsSchema, PullResponseSchema, PushResponseSchema } from '../../src/sync/protocol.ts';
import { freshDatabase, startService, type Service } from './helpers/service.ts';
import { enroll } from './helpers/templates.ts';

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

/** A valid push with one value somewhere replaced by an arbitrary one. */
const mutatedPush = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.jsonValue({ maxDepth: 2 })).map(([at, value]) => {
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

it('every reply is well-formed JSON, never a 5xx, never a stack', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), paths, queries, credentials, bodies, fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'), async (method, path, query, auth, body, type) => {
      const response = await fetch(service.url + path + query, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { 'content-type': type }) },
        ...(body === undefined || method === 'GET' ? {} : { body }),
        signal: AbortSignal.timeout(10_000),
      });
      if (response.headers.get('content-type')?.includes('text/event-stream')) {
        await response.body?.cancel();
        return;
      }
      const text = await response.text();
      expect(response.status, text.slice(0, 300)).toBeLessThan(500);
      expect(text).not.toMatch(/\bstack\b|\n\s+at /);
      const json = JSON.parse(text) as unknown;
      if (response.status >= 400) expect(ErrorBodySchema.safeParse(json).success, text.slice(0, 300)).toBe(true);
      else if (path === '/v1/push') PushResponseSchema.parse(json);
      else if (path === '/v1/pull') PullResponseSchema.parse(json);
      else if (path === '/v1/galleries') GalleriesResponseSchema.parse(json);
      else if (path.startsWith('/v1/galleries/')) GallerySettingsSchema.parse(json);
    }),
    { numRuns: 250 },
  );
});
