// The router (src/api/router.ts) in Node: routing, auth, body formats, validation codes, error
// shapes and statuses. The services are a recording in-memory fake: the router is the unit.
import { describe, expect, it } from 'vitest';
import { handleRequest, type RouterOptions } from '../../src/api/router.ts';
import { unimplementedServices, type Services } from '../../src/api/services.ts';
import { EngineError } from '../../src/errors.ts';
import { fakeServices } from './helpers/fake-services.ts';

const BASE = 'https://api.kairos.com';
const A = { appId: 'app-a', appKey: 'key-a' };
const B = { appId: 'app-b', appKey: 'key-b' };
const options: RouterOptions = { credentials: [A, B] };
const authA = { app_id: A.appId, app_key: A.appKey };
const authB = { app_id: B.appId, app_key: B.appKey };
const IMAGE = 'data:image/jpeg;base64,/9j/4AAQ';

interface Answer {
  status: number;
  contentType: string | null;
  body: any;
}

async function send(services: Services, method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit; json?: unknown } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const res = await handleRequest(new Request(BASE + path, { method, headers, body }), services, options);
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.json() };
}

const post = (services: Services, path: string, json: unknown, headers: Record<string, string> = authA) => send(services, 'POST', path, { headers, json });

function faceError(a: Answer): number {
  expect(a.contentType).toBe('application/json');
  expect(Object.keys(a.body)).toEqual(['Errors']);
  expect(a.body.Errors).toHaveLength(1);
  expect(typeof a.body.Errors[0].Message).toBe('string');
  return a.body.Errors[0].ErrCode;
}
function emotionError(a: Answer): number {
  expect(a.contentType).toBe('application/json');
  expect(Object.keys(a.body).sort()).toEqual(['code', 'message']);
  return a.body.code;
}

describe('routing', () => {
  it('every endpoint reaches its service with the validated parameters, the account and store_image', async () => {
    const f = fakeServices();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/detect', { image: IMAGE, minHeadScale: 0.1, selector: 'ROLL' }, 'detect'],
      ['POST', '/enroll', { image: IMAGE, subject_id: 's', gallery_name: 'g', multiple_faces: true }, 'enroll'],
      ['POST', '/verify', { image: IMAGE, subject_id: 's', gallery_name: 'g' }, 'verify'],
      ['POST', '/recognize', { image: IMAGE, gallery_name: 'g', threshold: 0.7, max_num_results: 3 }, 'recognize'],
      ['POST', '/gallery/list_all', undefined, 'galleryListAll'],
      ['POST', '/gallery/view', { gallery_name: 'g' }, 'galleryView'],
      ['POST', '/gallery/view_subject', { gallery_name: 'g', subject_id: 's' }, 'galleryViewSubject'],
      ['POST', '/gallery/remove_subject', { gallery_name: 'g', subject_id: 's' }, 'galleryRemoveSubject'],
      ['POST', '/gallery/remove', { gallery_name: 'g' }, 'galleryRemove'],
      ['POST', '/v2/media', { source: 'https://example.com/a.jpg' }, 'mediaPost'],
      ['GET', '/v2/media/m1', undefined, 'mediaGet'],
      ['DELETE', '/v2/media/zzz', undefined, 'mediaDelete'],
      ['GET', '/v2/analytics/m1', undefined, 'analyticsGet'],
    ];
    for (const [method, path, json, name] of cases) {
      const a = await send(f.services, method, path, { headers: authA, json });
      expect(a.contentType).toBe('application/json');
      const last = f.calls.at(-1)!;
      expect(last.name).toBe(name);
      expect(last.call.appId).toBe(A.appId);
      expect(last.call.storeImage).toBe(true);
      expect(last.call.signal).toBeInstanceOf(AbortSignal);
      if (json) expect(last.call.params).toEqual(json);
    }
    expect(f.calls.map((c) => c.name)).toEqual(cases.map((c) => c[3]));
  });

  it('success statuses: 200, and 202 for /v2/media still processing; bodies are the services’ own', async () => {
    const f = fakeServices();
    const enrolled = await post(f.services, '/enroll', { image: IMAGE, subject_id: 's', gallery_name: 'g' });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body.face_id).toMatch(/^face\d+$/);
    const media = await post(f.services, '/v2/media', { source: 'https://example.com/a.jpg' });
    expect(media.status).toBe(202);
    expect(media.body).toEqual({ id: expect.any(String), status_code: 2, status_message: 'Processing' });
    const deleted = await send(f.services, 'DELETE', `/v2/media/${media.body.id}`, { headers: authA });
    expect(deleted).toMatchObject({ status: 200, body: { id: media.body.id, status_code: '5', status_message: 'Deleted' } });
  });

  it('unknown paths: 404 + 3002 (face shape, or {code,message} under /v2); wrong methods too', async () => {
    const f = fakeServices();
    let a = await post(f.services, '/nope', {});
    expect(a.status).toBe(404);
    expect(faceError(a)).toBe(3002);
    a = await post(f.services, '/v2/nope', {});
    expect(a.status).toBe(404);
    expect(emotionError(a)).toBe(3002);
    a = await send(f.services, 'GET', '/detect', { headers: authA });
    expect(a.status).toBe(404);
    expect(faceError(a)).toBe(3002);
    expect(a.body.Errors[0].Message).toContain('POST');
    a = await send(f.services, 'PUT', '/v2/media/x', { headers: authA });
    expect(emotionError(a)).toBe(3002);
    a = await send(f.services, 'GET', '/v2/media/a/b', { headers: authA });
    expect(a.status).toBe(404);
    expect(f.calls).toHaveLength(0);
  });

  it('trailing and doubled slashes are tolerated; path ids are URL-decoded; options.path overrides the URL', async () => {
    const f = fakeServices();
    expect((await post(f.services, '//detect/', { image: IMAGE })).status).toBe(200);
    await send(f.services, 'GET', '/v2/media/a%20b%2Fc', { headers: authA });
    expect(f.calls.at(-1)!.call.params).toEqual({ id: 'a b/c' });
    const req = new Request('https://proxy.example/kairos/detect', { method: 'POST', headers: { ...authA, 'content-type': 'application/json' }, body: JSON.stringify({ image: IMAGE }) });
    const res = await handleRequest(req, f.services, { ...options, path: '/detect' });
    expect(res.status).toBe(200);
    expect(f.calls.at(-1)!.name).toBe('detect');
  });
});

describe('authentication', () => {
  it('missing or wrong app_id/app_key: 403 + 3003 and no service call', async () => {
    const f = fakeServices();
    const bad: Record<string, string>[] = [{}, { app_id: A.appId }, { app_key: A.appKey }, { app_id: A.appId, app_key: 'wrong' }, { app_id: A.appId, app_key: B.appKey }, { app_id: '', app_key: '' }];
    for (const headers of bad) {
      const a = await post(f.services, '/detect', { image: IMAGE }, headers);
      expect(a.status).toBe(403);
      expect(faceError(a)).toBe(3003);
    }
    const a = await send(f.services, 'GET', '/v2/media/x', { headers: { app_id: 'x', app_key: 'y' } });
    expect(a.status).toBe(403);
    expect(emotionError(a)).toBe(3003);
    expect(f.calls).toHaveLength(0);
  });

  it('header names are case-insensitive', async () => {
    const f = fakeServices();
    expect((await post(f.services, '/detect', { image: IMAGE }, { APP_ID: A.appId, App_Key: A.appKey })).status).toBe(200);
  });

  it('data is partitioned by app_id', async () => {
    const f = fakeServices();
    await post(f.services, '/enroll', { image: IMAGE, subject_id: 'alice', gallery_name: 'friends' }, authA);
    expect((await post(f.services, '/gallery/list_all', {}, authA)).body).toEqual({ status: 'Complete', gallery_ids: ['friends'] });
    expect((await post(f.services, '/gallery/list_all', {}, authB)).body).toEqual({ status: 'Complete', gallery_ids: [] });
    expect(faceError(await post(f.services, '/gallery/view', { gallery_name: 'friends' }, authB))).toBe(5004);
    expect(faceError(await post(f.services, '/gallery/remove', { gallery_name: 'friends' }, authB))).toBe(5004);
    expect((await post(f.services, '/gallery/view', { gallery_name: 'friends' }, authA)).body.subject_ids).toEqual(['alice']);
    const media = await post(f.services, '/v2/media', { source: 'https://example.com/v.mp4' }, authA);
    const other = await send(f.services, 'GET', `/v2/media/${media.body.id}`, { headers: authB });
    expect(other.body.status_code).toBe(3);
  });
});

describe('bodies and parameters', () => {
  it('store_image: false reaches the service as storeImage false', async () => {
    const f = fakeServices();
    await post(f.services, '/detect', { image: IMAGE }, { ...authA, store_image: 'false' });
    expect(f.calls.at(-1)!.call.storeImage).toBe(false);
    await post(f.services, '/detect', { image: IMAGE }, { ...authA, store_image: 'true' });
    expect(f.calls.at(-1)!.call.storeImage).toBe(true);
  });

  it('multipart/form-data: a file in image, text fields coerced to their JSON types', async () => {
    const f = fakeServices();
    const form = new FormData();
    form.append('image', new File([new Uint8Array([0xff, 0xd8, 0xff])], 'me.jpg', { type: 'image/jpeg' }));
    form.append('subject_id', 'alice');
    form.append('gallery_name', 'g');
    form.append('minHeadScale', '0.2');
    form.append('multiple_faces', 'true');
    const a = await send(f.services, 'POST', '/enroll', { headers: authA, body: form });
    expect(a.status).toBe(200);
    const params = f.calls.at(-1)!.call.params as Record<string, unknown>;
    expect(params.image).toBeInstanceOf(Blob);
    expect((params.image as File).name).toBe('me.jpg');
    expect(params).toMatchObject({ subject_id: 'alice', gallery_name: 'g', minHeadScale: 0.2, multiple_faces: true });
  });

  it('multipart/form-data: a file in source for /v2/media; bad multipart is 1001', async () => {
    const f = fakeServices();
    const form = new FormData();
    form.append('source', new File([new Uint8Array(10)], 'clip.mp4', { type: 'video/mp4' }));
    form.append('landmarks', '1');
    const a = await send(f.services, 'POST', '/v2/media?timeout=0', { headers: authA, body: form });
    expect(a.status).toBe(202);
    expect(f.calls.at(-1)!.call.params).toMatchObject({ source: expect.any(Blob), landmarks: true, timeout: 0 });
    const broken = await send(f.services, 'POST', '/v2/media', { headers: { ...authA, 'content-type': 'multipart/form-data' }, body: 'garbage' });
    expect(emotionError(broken)).toBe(1001);
  });

  it('query parameters: /v2/media?source=…&landmarks=1&timeout=…', async () => {
    const f = fakeServices();
    const a = await send(f.services, 'POST', `/v2/media?source=${encodeURIComponent('https://example.com/a.jpg')}&landmarks=1&timeout=30`, { headers: authA });
    expect(a.status).toBe(202);
    expect(f.calls.at(-1)!.call.params).toEqual({ source: 'https://example.com/a.jpg', landmarks: true, timeout: 30 });
    const b = await send(f.services, 'POST', '/v2/media?source=x&timeout=61', { headers: authA });
    expect(b.status).toBe(200);
    expect(emotionError(b)).toBe(1003);
    expect(b.body.message).toContain('timeout');
  });

  it('application/x-www-form-urlencoded, and JSON sent under that type (jQuery’s default)', async () => {
    const f = fakeServices();
    const form = new URLSearchParams({ image: IMAGE, gallery_name: 'g', threshold: '0.5', max_num_results: '2' });
    await send(f.services, 'POST', '/recognize', { headers: authA, body: form });
    expect(f.calls.at(-1)!.call.params).toEqual({ image: IMAGE, gallery_name: 'g', threshold: 0.5, max_num_results: 2 });
    await send(f.services, 'POST', '/detect', {
      headers: { ...authA, 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: JSON.stringify({ image: IMAGE, minHeadScale: 0.3 }),
    });
    expect(f.calls.at(-1)!.call.params).toEqual({ image: IMAGE, minHeadScale: 0.3 });
  });

  it('a JSON string body without Content-Type (text/plain) is read as JSON; an empty body is no parameters', async () => {
    const f = fakeServices();
    const a = await send(f.services, 'POST', '/detect', { headers: authA, body: JSON.stringify({ image: IMAGE }) });
    expect(a.status).toBe(200);
    const b = await send(f.services, 'POST', '/gallery/list_all', { headers: authA });
    expect(b.body.status).toBe('Complete');
    expect(faceError(await send(f.services, 'POST', '/detect', { headers: authA }))).toBe(1002);
  });

  it('unknown extra fields are ignored (not passed on)', async () => {
    const f = fakeServices();
    await post(f.services, '/gallery/view', { gallery_name: 'x', extra: 1, __proto__: { polluted: true } });
    expect(f.calls.at(-1)!.call.params).toEqual({ gallery_name: 'x' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('validation codes', () => {
  const code = async (path: string, json: unknown) => {
    const f = fakeServices();
    const a = await post(f.services, path, json);
    expect(a.status).toBe(200);
    expect(f.calls).toHaveLength(0);
    return { code: faceError(a), message: a.body.Errors[0].Message as string };
  };

  it('1002: a required parameter is missing, naming it', async () => {
    expect(await code('/detect', {})).toEqual({ code: 1002, message: 'missing required parameter: image' });
    expect(await code('/enroll', { image: IMAGE, gallery_name: 'g' })).toEqual({ code: 1002, message: 'missing required parameter: subject_id' });
    expect((await code('/recognize', { image: IMAGE })).message).toContain('gallery_name');
    expect((await code('/detect', { image: '  ' })).code).toBe(1002);
    // a missing parameter is reported before an invalid one
    expect((await code('/enroll', { image: IMAGE, subject_id: '', minHeadScale: 9 })).message).toContain('gallery_name');
  });

  it('1003: wrong type or out of range, naming the parameter', async () => {
    const cases: [string, unknown, string][] = [
      ['/detect', { image: IMAGE, minHeadScale: 0.01 }, 'minHeadScale'],
      ['/detect', { image: IMAGE, minHeadScale: 0.51 }, 'minHeadScale'],
      ['/detect', { image: IMAGE, minHeadScale: '0.1' }, 'minHeadScale'],
      ['/detect', { image: 42 }, 'image'],
      ['/detect', { image: IMAGE, selector: ['ROLL'] }, 'selector'],
      ['/recognize', { image: IMAGE, gallery_name: 'g', threshold: -0.1 }, 'threshold'],
      ['/recognize', { image: IMAGE, gallery_name: 'g', threshold: 1.01 }, 'threshold'],
      ['/recognize', { image: IMAGE, gallery_name: 'g', max_num_results: 0 }, 'max_num_results'],
      ['/recognize', { image: IMAGE, gallery_name: 'g', max_num_results: 2.5 }, 'max_num_results'],
      ['/enroll', { image: IMAGE, subject_id: '', gallery_name: 'g' }, 'subject_id'],
      ['/enroll', { image: IMAGE, subject_id: 's', gallery_name: 'g'.repeat(257) }, 'gallery_name'],
      ['/enroll', { image: IMAGE, subject_id: 's', gallery_name: 'g', multiple_faces: 'yes' }, 'multiple_faces'],
      ['/enroll', { image: IMAGE, subject_id: 7, gallery_name: 'g' }, 'subject_id'],
      ['/gallery/remove_subject', { gallery_name: 'g', subject_id: 's', face_id: 12 }, 'face_id'],
      ['/gallery/view', { gallery_name: null }, 'gallery_name'],
    ];
    for (const [path, json, name] of cases) {
      const r = await code(path, json);
      expect(r.code, `${path} ${JSON.stringify(json)}`).toBe(1003);
      expect(r.message).toContain(name);
    }
  });

  it('1000: control characters in an id', async () => {
    expect((await code('/gallery/view', { gallery_name: 'a\u0000b' })).code).toBe(1000);
  });

  it('1001: malformed JSON, a non-object body, an unsupported content type', async () => {
    const f = fakeServices();
    const malformed = await send(f.services, 'POST', '/detect', { headers: { ...authA, 'content-type': 'application/json' }, body: '{"image": ' });
    expect(malformed.status).toBe(200);
    expect(faceError(malformed)).toBe(1001);
    expect(faceError(await post(f.services, '/detect', [IMAGE]))).toBe(1001);
    expect(faceError(await post(f.services, '/detect', 'just a string'))).toBe(1001);
    expect(faceError(await post(f.services, '/detect', null))).toBe(1001);
    const xml = await send(f.services, 'POST', '/detect', { headers: { ...authA, 'content-type': 'application/xml' }, body: '<image/>' });
    expect(faceError(xml)).toBe(1001);
    expect(xml.body.Errors[0].Message).toContain('application/xml');
    expect(f.calls).toHaveLength(0);
  });

  it('emotion endpoints answer {code, message}: missing source is the documented 1002 body', async () => {
    const f = fakeServices();
    const a = await send(f.services, 'POST', '/v2/media', { headers: authA });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ code: 1002, message: 'Required source parameter missing.' });
    expect(emotionError(await send(f.services, 'GET', `/v2/media/${'x'.repeat(300)}`, { headers: authA }))).toBe(1003);
    expect(emotionError(await post(f.services, '/v2/media', { source: 'x', landmarks: 7 }))).toBe(1003);
    expect(emotionError(await send(f.services, 'POST', '/v2/media', { headers: { ...authA, 'content-type': 'application/json' }, body: '{' }))).toBe(1001);
    expect(f.calls).toHaveLength(0);
  });
});

describe('service outcomes', () => {
  it('an EngineError from a service is the interface’s error body (HTTP 200 for 5xxx)', async () => {
    const f = fakeServices();
    const a = await post(f.services, '/verify', { image: IMAGE, subject_id: 's', gallery_name: 'none' });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ Errors: [{ Message: 'gallery name not found', ErrCode: 5004 }] });
    const d = await send(f.services, 'DELETE', '/v2/media/none', { headers: authA });
    expect(d.body).toEqual({ code: 5003, message: 'Unable to delete media.' });
  });

  it('endpoints not implemented yet: 502 + 3001 "not implemented yet"', async () => {
    const services = unimplementedServices();
    const a = await post(services, '/enroll', { image: IMAGE, subject_id: 's', gallery_name: 'g' });
    expect(a.status).toBe(502);
    expect(faceError(a)).toBe(3001);
    expect(a.body.Errors[0].Message).toContain('POST /enroll is not implemented yet');
    const m = await send(services, 'GET', '/v2/analytics/x', { headers: authA });
    expect(m.status).toBe(502);
    expect(emotionError(m)).toBe(3001);
  });

  it('an unexpected exception (a bug) is 502 + 3001 with a well-formed body, never a throw', async () => {
    const services: Services = {
      ...unimplementedServices(),
      detect: async () => {
        throw new TypeError('boom');
      },
      galleryListAll: async () => undefined as never,
      galleryView: async () => ({ toJSON: () => { throw new Error('cannot serialise'); } }) as never,
    };
    for (const [path, json] of [['/detect', { image: IMAGE }], ['/gallery/list_all', {}], ['/gallery/view', { gallery_name: 'g' }]] as const) {
      const a = await post(services, path, json);
      expect(a.status).toBe(502);
      expect(faceError(a)).toBe(3001);
      expect(a.body.Errors[0].Message).toContain('internal error');
    }
  });

  it('a non-Request argument still gets an answer', async () => {
    const res = await handleRequest({} as Request, fakeServices().services, options);
    expect(res.status).toBe(502);
    expect((await res.json()).Errors[0].ErrCode).toBe(3001);
  });

  it('EngineErrors thrown for rate limiting map to 429', async () => {
    const services: Services = { ...unimplementedServices(), detect: async () => { throw new EngineError('RATE_LIMITED'); } };
    const a = await post(services, '/detect', { image: IMAGE });
    expect(a.status).toBe(429);
    expect(faceError(a)).toBe(3000);
  });
});
