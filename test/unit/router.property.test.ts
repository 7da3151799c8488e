// Property tests of the router: random and malformed methods, paths, headers and bodies.
// It always answers (never throws, rejects or hangs) with application/json and a well-formed
// body; it calls no service unless the request is routed, authenticated and valid; and a
// request answered with an error leaves the stored data unchanged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { familyOfPath } from '../../src/api/error-body.ts';
import { handleRequest, normalizePath, type RouterOptions } from '../../src/api/router.ts';
import { MUTATING_SERVICES, REQUEST_SCHEMAS } from '../../src/api/services.ts';
import { fakeServices } from './helpers/fake-services.ts';

const CREDENTIALS = [
  { appId: 'app-a', appKey: 'key-a' },
  { appId: 'app-b', appKey: 'key-b' },
];
const options: RouterOptions = { credentials: CREDENTIALS };
const STATUSES = new Set([200, 202, 403, 404, 502]);
const PATHS = [
  '/detect',
  '/enroll',
  '/verify',
  '/recognize',
  '/gallery/list_all',
  '/gallery/view',
  '/gallery/view_subject',
  '/gallery/remove',
  '/gallery/remove_subject',
  '/v2/media',
  '/v2/media/m1',
  '/v2/analytics/m1',
];
const FIELDS = ['image', 'subject_id', 'gallery_name', 'minHeadScale', 'multiple_faces', 'selector', 'threshold', 'max_num_results', 'face_id', 'source', 'landmarks', 'timeout', '__proto__', 'constructor'];

// ---------------------------------------------------------------- arbitraries

const anyValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', 'g', 's', 'data:image/png;base64,AAAA', 'https://example.com/a.jpg', 'true', '1', '0.2', 'x'.repeat(300), 'a\u0000b'),
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, 1, 0.015, 0.5, 0.6, -1, 61, 1e308),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

/** Objects with the interface's field names (often near-valid) and random extras. */
const paramObject = fc
  .tuple(fc.dictionary(fc.constantFrom(...FIELDS), anyValue, { maxKeys: 6 }), fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { maxKeys: 2 }))
  .map(([known, extra]) => ({ ...extra, ...known }));

const headerText = fc.stringMatching(/^[\x20-\x7e]{0,20}$/).map((s) => s.trim());

const credentialHeaders = fc.oneof(
  { arbitrary: fc.constantFrom(...CREDENTIALS).map((c) => ({ app_id: c.appId, app_key: c.appKey })), weight: 4 },
  fc.constant({ app_id: 'app-a', app_key: 'key-b' }),
  fc.record({ app_id: headerText, app_key: headerText }, { requiredKeys: [] }),
);

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 2 },
  fc.constantFrom(
    undefined,
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'multipart/form-data',
    'multipart/form-data; boundary=xyz',
    'application/x-www-form-urlencoded',
    'application/xml',
    'image/jpeg',
    'application/vnd.api+json',
  ),
  headerText,
);

type BodyKind = { kind: 'json'; value: unknown } | { kind: 'text'; value: string } | { kind: 'form'; value: Record<string, unknown> } | { kind: 'urlencoded'; value: Record<string, unknown> } | { kind: 'none' };

const body: fc.Arbitrary<BodyKind> = fc.oneof(
  paramObject.map((value) => ({ kind: 'json' as const, value })),
  fc.jsonValue({ maxDepth: 3 }).map((value) => ({ kind: 'json' as const, value })),
  fc.string({ maxLength: 60 }).map((value) => ({ kind: 'text' as const, value })),
  fc.constantFrom('{', '{"image":', '[]', 'null', '"x"', '{"a":1}}', '\u0000').map((value) => ({ kind: 'text' as const, value })),
  paramObject.map((value) => ({ kind: 'form' as const, value })),
  paramObject.map((value) => ({ kind: 'urlencoded' as const, value })),
  fc.constant({ kind: 'none' as const }),
);

const path = fc.oneof(
  { arbitrary: fc.constantFrom(...PATHS), weight: 4 },
  fc.constantFrom(...PATHS).map((p) => `/${p}/`),
  fc.webPath(),
  fc.string({ maxLength: 30 }).map((s) => `/v2/media/${encodeURIComponent(s)}`),
  fc.string({ maxLength: 30 }).map((s) => `/${encodeURIComponent(s)}`),
);
const query = fc.oneof(fc.constant(''), fc.webQueryParameters().map((q) => `?${q}`), fc.constant('?source=https%3A%2F%2Fexample.com%2Fa.jpg&landmarks=1&timeout=5'));
const method = fc.constantFrom('GET', 'POST', 'POST', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'get', 'Post');

const requestSpec = fc.record({
  method,
  path,
  query,
  credentials: credentialHeaders,
  contentType,
  storeImage: fc.option(headerText, { nil: undefined }),
  extraHeaders: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), headerText, { maxKeys: 3 }),
  body,
});
type RequestSpec = typeof requestSpec extends fc.Arbitrary<infer T> ? T : never;

function formValue(v: unknown): string | Blob {
  if (typeof v === 'string') return v;
  if (v === null || typeof v !== 'object') return String(v);
  return new Blob([JSON.stringify(v)], { type: 'application/octet-stream' });
}

function build(spec: RequestSpec): Request | null {
  const headers = new Headers(spec.extraHeaders);
  for (const [k, v] of Object.entries(spec.credentials)) if (v !== undefined) headers.set(k, v);
  if (spec.storeImage !== undefined) headers.set('store_image', spec.storeImage);
  let b: BodyInit | undefined;
  switch (spec.body.kind) {
    case 'json':
      b = JSON.stringify(spec.body.value) ?? '';
      break;
    case 'text':
      b = spec.body.value;
      break;
    case 'form': {
      const form = new FormData();
      for (const [k, v] of Object.entries(spec.body.value)) form.append(k, formValue(v));
      b = form;
      break;
    }
    case 'urlencoded':
      b = new URLSearchParams(Object.entries(spec.body.value).map(([k, v]) => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]));
      break;
  }
  // a form body keeps its own (boundary) type; other bodies get the random one
  if (spec.contentType !== undefined && spec.body.kind !== 'form') headers.set('content-type', spec.contentType);
  const m = spec.method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') b = undefined;
  try {
    return new Request(`https://api.kairos.com${spec.path}${spec.query}`, { method: spec.method, headers, body: b });
  } catch {
    return null;
  }
}

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);

function isFaceError(b: unknown): boolean {
  if (typeof b !== 'object' || b === null || Object.keys(b).join() !== 'Errors') return false;
  const errors = (b as { Errors: unknown }).Errors;
  return (
    Array.isArray(errors) &&
    errors.length === 1 &&
    Object.keys(errors[0]).sort().join() === 'ErrCode,Message' &&
    Number.isInteger(errors[0].ErrCode) &&
    typeof errors[0].Message === 'string' &&
    errors[0].Message.length > 0
  );
}
function isEmotionError(b: unknown): boolean {
  if (typeof b !== 'object' || b === null || Object.keys(b).sort().join() !== 'code,message') return false;
  const { code, message } = b as { code: unknown; message: unknown };
  return Number.isInteger(code) && typeof message === 'string' && message.length > 0;
}

const ERROR_CODES_BY_STATUS: Record<number, number[]> = { 403: [3003], 404: [3002], 502: [3001] };

describe('router properties', () => {
  it('always a well-formed JSON answer; services only for routed, authenticated, valid requests; errors change nothing', async () => {
    const fake = fakeServices();
    // some stored data so removals have something to remove
    const seed = (appId: string, appKey: string) =>
      handleRequest(
        new Request('https://api.kairos.com/enroll', {
          method: 'POST',
          headers: { app_id: appId, app_key: appKey, 'content-type': 'application/json' },
          body: JSON.stringify({ image: 'x', subject_id: 's', gallery_name: 'g' }),
        }),
        fake.services,
        options,
      );
    await seed('app-a', 'key-a');
    await seed('app-b', 'key-b');

    let answered = 0;
    let served = 0;
    await fc.assert(
      fc.asyncProperty(requestSpec, async (spec) => {
        const request = build(spec);
        fc.pre(request !== null);
        const before = fake.snapshot();
        const callsBefore = fake.calls.length;
        const response = await within(handleRequest(request!, fake.services, options), 5000);
        answered++;
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(STATUSES.has(response.status)).toBe(true);
        const json: unknown = JSON.parse(await response.text());
        const routePath = normalizePath(new URL(request!.url).pathname);
        const family = familyOfPath(routePath);
        const newCalls = fake.calls.slice(callsBefore);
        served += newCalls.length;
        const isError = family === 'emotion' ? isEmotionError(json) : isFaceError(json);
        if (response.status !== 200 && response.status !== 202) {
          expect(isError, JSON.stringify(json)).toBe(true);
          const code = family === 'emotion' ? (json as { code: number }).code : (json as { Errors: { ErrCode: number }[] }).Errors[0]!.ErrCode;
          expect(ERROR_CODES_BY_STATUS[response.status]).toContain(code);
        }
        if (response.status === 403 || response.status === 404 || (isError && newCalls.length === 0)) {
          // refused before any service: nothing called, nothing changed
          expect(newCalls).toHaveLength(0);
          expect(fake.snapshot()).toBe(before);
        }
        // at most one service per request, and only with a valid account and valid parameters
        expect(newCalls.length).toBeLessThanOrEqual(1);
        for (const { name, call } of newCalls) {
          const creds = CREDENTIALS.find((c) => c.appId === request!.headers.get('app_id') && c.appKey === request!.headers.get('app_key'));
          expect(creds).toBeDefined();
          expect(call.appId).toBe(creds!.appId);
          expect(REQUEST_SCHEMAS[name].safeParse(call.params).success).toBe(true);
          if (!MUTATING_SERVICES.includes(name)) expect(fake.snapshot()).toBe(before);
        }
        if (newCalls.length === 0) expect(fake.snapshot()).toBe(before);
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(2000);
    // the random requests are not all refused at the door: a fair share reaches a service
    expect(served).toBeGreaterThan(40);
    console.log(`router property: ${answered} requests answered, ${served} reached a service`);
  });

  it('near-valid bodies on every endpoint with valid credentials: a valid one reaches its service, an invalid one gets 1001/1002/1003/1000 and reaches none', async () => {
    const fake = fakeServices();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS.filter((p) => !p.includes('/m1'))), paramObject, async (p, params) => {
        const callsBefore = fake.calls.length;
        const before = fake.snapshot();
        const res = await within(
          handleRequest(
            new Request(`https://api.kairos.com${p}`, { method: 'POST', headers: { app_id: 'app-a', app_key: 'key-a', 'content-type': 'application/json' }, body: JSON.stringify(params) }),
            fake.services,
            options,
          ),
          5000,
        );
        const json = (await res.json()) as Record<string, unknown>;
        const called = fake.calls.length - callsBefore;
        const isError = familyOfPath(p) === 'emotion' ? isEmotionError(json) : isFaceError(json);
        if (!called) {
          expect(isError).toBe(true);
          const code = 'code' in json ? json.code : (json as { Errors: { ErrCode: number }[] }).Errors[0]!.ErrCode;
          expect([1000, 1001, 1002, 1003]).toContain(code);
          expect(fake.snapshot()).toBe(before);
        } else {
          expect(called).toBe(1);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
