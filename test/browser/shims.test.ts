// The request surface in Chromium: the fetch and XMLHttpRequest shims in front of the real
// engine, called by unmodified third-party clients from npm (jQuery.ajax, axios with its
// default XHR adapter and with adapter 'fetch') and by plain fetch — same answers for the same
// request, auth, validation codes, pass-through, abort, uninstall, and random requests.
import axios from 'axios';
import fc from 'fast-check';
// @ts-ignore -- jquery 4 ships no type declarations; the test uses a small typed view of it
import jQueryModule from 'jquery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import { createEngine, createRequestHandler, installFetchShim, installShims, installXhrShim, type Engine, type RequestHandler, type Shim } from '../../src/index.ts';
import { fakeServices } from '../unit/helpers/fake-services.ts';

interface JqXHR {
  status: number;
  responseText: string;
  responseJSON?: unknown;
  getResponseHeader(name: string): string | null;
}
interface JQueryLike {
  ajax(settings: Record<string, unknown>): PromiseLike<unknown> & { then: unknown };
}
const $ = jQueryModule as unknown as JQueryLike;

const KAIROS = 'https://api.kairos.com';
const FAKE = 'https://fake.kairos.test';
const ALPHA = { appId: 'alpha', appKey: 'alpha-key' };
const BETA = { appId: 'beta', appKey: 'beta-key' };
const authAlpha = { app_id: ALPHA.appId, app_key: ALPHA.appKey };
const authBeta = { app_id: BETA.appId, app_key: BETA.appKey };

interface Answer {
  status: number;
  contentType: string | null;
  body: any;
}
interface Call {
  method?: string;
  headers?: Record<string, string>;
  /** sent as JSON with Content-Type application/json */
  json?: unknown;
  /** sent as is (FormData, string …) */
  body?: BodyInit;
}

let engine: Engine;
let shims: Shim;
let obamaBase64: string;
let obamaBlob: Blob;

const viaFetch = async (url: string, c: Call = {}): Promise<Answer> => {
  const headers = new Headers(c.headers);
  if (c.json !== undefined) headers.set('Content-Type', 'application/json');
  const res = await fetch(url, { method: c.method ?? 'POST', headers, body: c.json !== undefined ? JSON.stringify(c.json) : c.body });
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.json() };
};

const viaJquery = (url: string, c: Call = {}): Promise<Answer> =>
  new Promise((resolve) => {
    const done = (xhr: JqXHR) =>
      resolve({ status: xhr.status, contentType: xhr.getResponseHeader('content-type'), body: xhr.responseJSON ?? JSON.parse(xhr.responseText) });
    const form = c.body instanceof FormData;
    $.ajax({
      url,
      method: c.method ?? 'POST',
      headers: c.headers ?? {},
      data: c.json !== undefined ? JSON.stringify(c.json) : c.body,
      ...(c.json !== undefined ? { contentType: 'application/json' } : {}),
      ...(form ? { processData: false, contentType: false } : {}),
      dataType: 'json',
      success: (_data: unknown, _status: string, xhr: JqXHR) => done(xhr),
      error: (xhr: JqXHR) => done(xhr),
    });
  });

const viaAxios = async (url: string, c: Call = {}, adapter: 'xhr' | 'fetch' = 'xhr'): Promise<Answer> => {
  const res = await axios.request({
    url,
    method: c.method ?? 'POST',
    headers: { ...(c.headers ?? {}), ...(c.json !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    data: c.json !== undefined ? c.json : c.body,
    adapter,
    validateStatus: () => true,
  });
  return { status: res.status, contentType: String(res.headers['content-type']), body: res.data };
};

const CLIENTS = {
  fetch: viaFetch,
  jquery: viaJquery,
  axios: (url: string, c?: Call) => viaAxios(url, c, 'xhr'),
  'axios (fetch adapter)': (url: string, c?: Call) => viaAxios(url, c, 'fetch'),
};

/** The same request through every client (or those named): returns the one answer they all agree on. */
async function allClients(url: string, c: Call | (() => Call), names: (keyof typeof CLIENTS)[] = Object.keys(CLIENTS) as (keyof typeof CLIENTS)[]): Promise<Answer> {
  const answers: Record<string, Answer> = {};
  for (const name of names) answers[name] = await CLIENTS[name](url, typeof c === 'function' ? c() : c);
  const [first] = Object.values(answers);
  for (const [name, a] of Object.entries(answers)) expect(a, name).toEqual(first);
  return first!;
}

const errCode = (a: Answer) => (a.body.Errors ? a.body.Errors[0].ErrCode : a.body.code);

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

beforeAll(async () => {
  obamaBlob = await (await fetch(obamaUrl)).blob();
  obamaBase64 = toBase64(new Uint8Array(await obamaBlob.arrayBuffer()));
  engine = await createEngine({ backend: 'wasm', credentials: [ALPHA, BETA], storageName: `shims-test-${Date.now()}` });
  shims = installShims(engine);
});
afterAll(() => {
  shims?.uninstall();
  engine?.close();
});

describe('the same request through fetch, jQuery.ajax and axios', () => {
  it('real /detect with a base64 JSON body: identical answers, and the typed call agrees', async () => {
    const a = await allClients(`${KAIROS}/detect`, { headers: authAlpha, json: { image: obamaBase64, selector: 'FRONTAL' } });
    expect(a.status).toBe(200);
    expect(a.contentType).toBe('application/json');
    expect(a.body.images[0].faces).toHaveLength(1);
    expect(a.body.images[0].faces[0].attributes.gender.type).toBe('M');
    expect(await engine.detect({ image: obamaBase64, selector: 'FRONTAL' })).toEqual(a.body);
  });

  it('real /detect with a multipart/form-data file upload', async () => {
    const form = () => {
      const f = new FormData();
      f.append('image', new File([obamaBlob], 'obama.jpg', { type: 'image/jpeg' }));
      f.append('minHeadScale', '0.1');
      return f;
    };
    const a = await allClients(`${KAIROS}/detect`, () => ({ headers: authAlpha, body: form() }));
    expect(a.status).toBe(200);
    expect(a.body.images[0].file).toBe('obama.jpg');
    expect(a.body.images[0].faces).toHaveLength(1);
  });

  it('a URL image, store_image: false, and the trailing-slash base URL existing clients use', async () => {
    const image = new URL(obamaUrl, location.href).href;
    const a = await allClients(`${KAIROS}//detect`, { headers: { ...authAlpha, store_image: 'false' }, json: { image } });
    expect(a.status).toBe(200);
    expect(a.body.images[0].file).toBe('obama.jpg');
  });

  it('403 + 3003 for missing or wrong credentials, on face and emotion endpoints', async () => {
    for (const headers of [{}, { app_id: ALPHA.appId, app_key: BETA.appKey }, { app_id: 'nobody', app_key: 'x' }] as Record<string, string>[]) {
      const a = await allClients(`${KAIROS}/detect`, { headers, json: { image: obamaBase64 } });
      expect(a.status).toBe(403);
      expect(a.body).toEqual({ Errors: [{ ErrCode: 3003, Message: expect.stringContaining('invalid authentication parameters') }] });
    }
    const m = await allClients(`${KAIROS}/v2/media/abc`, { method: 'GET', headers: { app_id: 'nobody', app_key: 'x' } });
    expect(m.status).toBe(403);
    expect(m.body).toEqual({ code: 3003, message: expect.any(String) });
  });

  it('validation codes: 1001, 1002, 1003 (naming the parameter), 404/3002, and the emotion shape', async () => {
    const post = (path: string, c: Call) => allClients(`${KAIROS}${path}`, { headers: authAlpha, ...c });
    const expectCode = (a: Answer, status: number, code: number, mention?: string) => {
      expect(a.status).toBe(status);
      expect(a.contentType).toBe('application/json');
      expect(errCode(a)).toBe(code);
      if (mention) expect(JSON.stringify(a.body)).toContain(mention);
    };
    expectCode(await post('/detect', { json: {} }), 200, 1002, 'image');
    expectCode(await post('/detect', { json: { image: obamaBase64, minHeadScale: 0.9 } }), 200, 1003, 'minHeadScale');
    expectCode(await post('/recognize', { json: { image: obamaBase64, gallery_name: 'g', threshold: 1.5 } }), 200, 1003, 'threshold');
    expectCode(await post('/recognize', { json: { image: obamaBase64, gallery_name: 'g', max_num_results: 0 } }), 200, 1003, 'max_num_results');
    expectCode(await post('/enroll', { json: { image: obamaBase64, subject_id: '', gallery_name: 'g' } }), 200, 1003, 'subject_id');
    expectCode(await post('/enroll', { json: { image: obamaBase64, subject_id: 's', gallery_name: 'x'.repeat(300) } }), 200, 1003, 'gallery_name');
    expectCode(await post('/enroll', { json: { image: obamaBase64, subject_id: 's', gallery_name: 'g', multiple_faces: 'yes' } }), 200, 1003, 'multiple_faces');
    expectCode(await post('/gallery/view', { json: { gallery_name: 'a\u0001' } }), 200, 1000, 'gallery_name');
    // (axios re-encodes a string that is not valid JSON as a JSON string: the body is then "not an object", still 1001)
    const malformed = { headers: { ...authAlpha, 'Content-Type': 'application/json' }, body: '{"image":' };
    expectCode(await allClients(`${KAIROS}/detect`, malformed, ['fetch', 'jquery']), 200, 1001, 'malformed JSON');
    expectCode(await allClients(`${KAIROS}/detect`, malformed, ['axios', 'axios (fetch adapter)']), 200, 1001);
    expectCode(await post('/detect', { headers: { ...authAlpha, 'Content-Type': 'application/xml' }, body: '<image/>' }), 200, 1001, 'application/xml');
    expectCode(await post('/no/such/endpoint', { json: {} }), 404, 3002);
    const media = await post('/v2/media', { json: {} });
    expect(media.status).toBe(200);
    expect(media.body).toEqual({ code: 1002, message: 'Required source parameter missing.' });
  });
});

describe('the shims', () => {
  it('non-matching URLs pass through to the original fetch with the very same arguments', async () => {
    const seen: unknown[][] = [];
    const spy = ((...args: unknown[]) => {
      seen.push(args);
      return Promise.resolve(new Response('from the network'));
    }) as typeof fetch;
    const saved = globalThis.fetch;
    globalThis.fetch = spy;
    const shim = installFetchShim(engine);
    try {
      const init = { method: 'POST', body: 'x', headers: { a: 'b' } };
      const url = new URL('https://example.com/detect');
      expect(await (await fetch(url, init)).text()).toBe('from the network');
      expect(seen[0]![0]).toBe(url);
      expect(seen[0]![1]).toBe(init);
      expect(seen[0]).toHaveLength(2);
      await fetch('https://api.kairos.com.evil.example/detect');
      await fetch('http://api.kairos.com/detect'); // another origin (scheme)
      expect(seen).toHaveLength(3);
      // a matching URL never reaches it
      const r = await fetch(`${KAIROS}/gallery/list_all`, { method: 'POST', headers: authAlpha });
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(seen).toHaveLength(3);
    } finally {
      shim.uninstall();
    }
    expect(globalThis.fetch).toBe(spy);
    globalThis.fetch = saved;
  });

  it('non-matching URLs use the native XMLHttpRequest (the real file comes back)', async () => {
    const xhr = new XMLHttpRequest();
    const loaded = new Promise<void>((resolve) => xhr.addEventListener('loadend', () => resolve()));
    xhr.open('GET', obamaUrl);
    xhr.responseType = 'arraybuffer';
    xhr.send();
    await loaded;
    expect(xhr.status).toBe(200);
    expect(xhr.getResponseHeader('content-type')).toContain('image/jpeg');
    expect((xhr.response as ArrayBuffer).byteLength).toBe(obamaBlob.size);
    // (a jqXHR is a thenable: resolve with its fields, not with it)
    const jq = await new Promise<{ status: number; type: string | null }>((resolve) =>
      $.ajax({ url: obamaUrl, method: 'GET', dataType: 'text', complete: (x: JqXHR) => resolve({ status: x.status, type: x.getResponseHeader('content-type') }) }),
    );
    expect(jq).toEqual({ status: 200, type: expect.stringContaining('image/jpeg') });
  });

  it('XHR: readyState 1→2→3→4, events, headers, responseType json/arraybuffer/blob, responseURL', async () => {
    const run = (responseType: XMLHttpRequestResponseType) =>
      new Promise<{ xhr: XMLHttpRequest; states: number[]; events: string[] }>((resolve) => {
        const xhr = new XMLHttpRequest();
        const states: number[] = [];
        const events: string[] = [];
        xhr.onreadystatechange = () => states.push(xhr.readyState);
        for (const type of ['loadstart', 'progress', 'load', 'loadend']) xhr.addEventListener(type, () => events.push(type));
        xhr.onload = () => events.push('onload');
        xhr.onloadend = () => resolve({ xhr, states, events });
        xhr.open('POST', `${KAIROS}/gallery/list_all`);
        xhr.setRequestHeader('app_id', ALPHA.appId);
        xhr.setRequestHeader('app_key', ALPHA.appKey);
        xhr.responseType = responseType;
        xhr.send();
      });
    const text = await run('');
    expect(text.states).toEqual([1, 2, 3, 4]);
    expect(text.events).toEqual(['loadstart', 'progress', 'load', 'onload', 'loadend']);
    expect([200, 502]).toContain(text.xhr.status); // 502/3001 until /gallery/list_all is wired, then 200
    expect(text.xhr.getAllResponseHeaders()).toContain('content-type: application/json\r\n');
    expect(text.xhr.responseURL).toBe(`${KAIROS}/gallery/list_all`);
    const body = JSON.parse(text.xhr.responseText);
    expect((await run('json')).xhr.response).toEqual(body);
    expect(new TextDecoder().decode((await run('arraybuffer')).xhr.response)).toBe(text.xhr.responseText);
    expect(await ((await run('blob')).xhr.response as Blob).text()).toBe(text.xhr.responseText);
    expect(() => (new XMLHttpRequest() as XMLHttpRequest).open('GET', `${KAIROS}/v2/media/x`, false)).not.toThrow();
  });

  it('XHR: synchronous requests to the engine throw NetworkError; abort and timeout behave like the native ones', async () => {
    const sync = new XMLHttpRequest();
    sync.open('POST', `${KAIROS}/detect`, false);
    expect(() => sync.send('{}')).toThrow(expect.objectContaining({ name: 'NetworkError' }));

    // a handler that never answers, on its own base URL, over the installed shims
    const stuck: RequestHandler = { handle: () => new Promise(() => {}) };
    const shim = installXhrShim(stuck, { baseUrls: [FAKE] });
    try {
      const aborted = new XMLHttpRequest();
      const events: string[] = [];
      aborted.onreadystatechange = () => events.push(`rs${aborted.readyState}`);
      aborted.onabort = () => events.push('abort');
      aborted.onloadend = () => events.push('loadend');
      aborted.open('POST', `${FAKE}/detect`);
      aborted.send('{}');
      aborted.abort();
      expect(events).toEqual(['rs1', 'rs4', 'abort', 'loadend']);
      expect(aborted.readyState).toBe(0);
      expect(aborted.status).toBe(0);

      const timed = new XMLHttpRequest();
      const timedOut = new Promise<string>((resolve) => {
        timed.ontimeout = () => resolve('timeout');
      });
      timed.open('POST', `${FAKE}/detect`);
      timed.timeout = 50;
      timed.send('{}');
      expect(await timedOut).toBe('timeout');
      expect(timed.readyState).toBe(4);
      expect(timed.status).toBe(0);

      // axios and jQuery see them as a cancel and an error
      const controller = new AbortController();
      const pending = axios.post(`${FAKE}/detect`, {}, { signal: controller.signal });
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'CanceledError' });
      const jq = await new Promise<string>((resolve) => $.ajax({ url: `${FAKE}/detect`, method: 'POST', timeout: 50, error: (_x: unknown, status: string) => resolve(status) }));
      expect(jq).toBe('timeout');
    } finally {
      shim.uninstall();
    }
  });

  it('fetch: an abort rejects with the signal’s reason (AbortError)', async () => {
    const stuck: RequestHandler = { handle: () => new Promise(() => {}) };
    const shim = installFetchShim(stuck, { baseUrls: [FAKE] });
    try {
      const controller = new AbortController();
      const pending = fetch(`${FAKE}/detect`, { method: 'POST', body: '{}', signal: controller.signal });
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      await expect(fetch(`${FAKE}/detect`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
      await expect(axios.post(`${FAKE}/detect`, {}, { adapter: 'fetch', signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'CanceledError' });
    } finally {
      shim.uninstall();
    }
  });

  it('uninstall restores the original fetch and XMLHttpRequest', async () => {
    const fetchBefore = globalThis.fetch;
    const xhrBefore = globalThis.XMLHttpRequest;
    const shim = installShims(engine, { baseUrls: [FAKE] });
    expect(globalThis.fetch).not.toBe(fetchBefore);
    expect(globalThis.XMLHttpRequest).not.toBe(xhrBefore);
    expect(new XMLHttpRequest()).toBeInstanceOf(xhrBefore);
    shim.uninstall();
    expect(globalThis.fetch).toBe(fetchBefore);
    expect(globalThis.XMLHttpRequest).toBe(xhrBefore);
  });

  it('a base URL with a path prefix', async () => {
    const shim = installFetchShim(engine, { baseUrls: [`${FAKE}/kairos/`] });
    try {
      const a = await viaFetch(`${FAKE}/kairos/v2/media`, { headers: authAlpha, json: {} });
      expect(a.body).toEqual({ code: 1002, message: 'Required source parameter missing.' });
    } finally {
      shim.uninstall();
    }
  });
});

describe('accounts', () => {
  it('each app_id is authenticated on its own; typed calls act as the configured default account', async () => {
    expect(engine.appId).toBe(ALPHA.appId);
    expect((await viaFetch(`${KAIROS}/detect`, { headers: authBeta, json: { image: obamaBase64 } })).status).toBe(200);
    expect((await viaFetch(`${KAIROS}/detect`, { headers: { app_id: BETA.appId, app_key: ALPHA.appKey }, json: { image: obamaBase64 } })).status).toBe(403);
  });

  it('galleries are partitioned by app_id (runs once /enroll and /gallery are wired)', async (ctx) => {
    const gallery = `iso-${Date.now()}`;
    const enrolled = await viaFetch(`${KAIROS}/enroll`, { headers: authAlpha, json: { image: obamaBase64, subject_id: 'obama', gallery_name: gallery } });
    if (enrolled.status === 502) ctx.skip();
    expect(enrolled.status).toBe(200);
    const alpha = await viaFetch(`${KAIROS}/gallery/list_all`, { headers: authAlpha });
    const beta = await viaFetch(`${KAIROS}/gallery/list_all`, { headers: authBeta });
    expect(alpha.body.gallery_ids).toContain(gallery);
    expect(beta.body.gallery_ids).not.toContain(gallery);
    expect(errCode(await viaFetch(`${KAIROS}/gallery/view`, { headers: authBeta, json: { gallery_name: gallery } }))).toBe(5004);
    await viaFetch(`${KAIROS}/gallery/remove`, { headers: authAlpha, json: { gallery_name: gallery } });
  });
});

describe('random requests at the shims', () => {
  const FIELDS = ['image', 'subject_id', 'gallery_name', 'minHeadScale', 'multiple_faces', 'selector', 'threshold', 'max_num_results', 'face_id', 'source', 'landmarks', 'timeout'];
  const value = fc.oneof(fc.string({ maxLength: 20 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom('', 'g', 's', '0.2', 'true', 'x'.repeat(300)));
  const params = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 5 });
  const headerText = fc.stringMatching(/^[\x21-\x7e]{0,12}$/);
  const spec = fc.record({
    client: fc.constantFrom('fetch', 'xhr'),
    method: fc.constantFrom('POST', 'POST', 'GET', 'DELETE', 'PUT'),
    path: fc.oneof(
      fc.constantFrom('/detect', '/enroll', '/recognize', '/gallery/list_all', '/gallery/view', '/gallery/remove', '/gallery/remove_subject', '/v2/media', '/v2/media/m1'),
      fc.webPath(),
    ),
    auth: fc.oneof(fc.constant(authAlpha), fc.constant(authBeta), fc.record({ app_id: headerText, app_key: headerText }, { requiredKeys: [] })),
    contentType: fc.constantFrom('application/json', 'text/plain', 'multipart/form-data', 'application/x-www-form-urlencoded', 'application/xml'),
    body: fc.oneof(params.map((p) => JSON.stringify(p)), fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v))),
  });

  /** Sends through the fetch or the XHR shim; never throws, returns status, type and text. */
  async function send(base: string, s: typeof spec extends fc.Arbitrary<infer T> ? T : never) {
    const url = base + s.path;
    const headers: Record<string, string> = { ...s.auth, 'Content-Type': s.contentType };
    if (s.client === 'fetch') {
      const res = await fetch(url, { method: s.method, headers, body: s.method === 'GET' ? undefined : s.body });
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    }
    return new Promise<{ status: number; type: string | null; text: string }>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.onload = () => resolve({ status: xhr.status, type: xhr.getResponseHeader('content-type'), text: xhr.responseText });
      xhr.onerror = () => reject(new Error('xhr error'));
      xhr.open(s.method, url);
      for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
      xhr.send(s.body);
    });
  }

  const wellFormed = (path: string, text: string) => {
    const body = JSON.parse(text);
    if (path.startsWith('/v2/')) return Number.isInteger(body.code) && typeof body.message === 'string';
    return Array.isArray(body.Errors) && body.Errors.length === 1 && Number.isInteger(body.Errors[0].ErrCode) && typeof body.Errors[0].Message === 'string';
  };

  it('fake services behind both shims: always a JSON answer, errors well-formed, refused requests change nothing', async () => {
    const fake = fakeServices();
    const shim = installShims(createRequestHandler(fake.services, { credentials: [ALPHA, BETA] }), { baseUrls: [FAKE] });
    try {
      await fc.assert(
        fc.asyncProperty(spec, async (s) => {
          const before = fake.snapshot();
          const calls = fake.calls.length;
          const a = await send(FAKE, s);
          expect(a.type).toBe('application/json');
          expect([200, 202, 403, 404, 502]).toContain(a.status);
          const json = JSON.parse(a.text);
          const isError = wellFormed(s.path.replace(/\/+/g, '/'), a.text);
          if (a.status >= 400) expect(isError).toBe(true);
          if (fake.calls.length === calls) expect(fake.snapshot()).toBe(before);
          if (isError && (a.status === 403 || a.status === 404 || [1000, 1001, 1002, 1003].includes(json.Errors?.[0].ErrCode ?? json.code))) {
            expect(fake.calls.length).toBe(calls);
          }
        }),
        { numRuns: 400 },
      );
    } finally {
      shim.uninstall();
    }
  });

  it('the real engine behind both shims: random bodies are answered, never thrown, always JSON', async () => {
    await fc.assert(
      fc.asyncProperty(spec, async (s) => {
        const a = await send(KAIROS, s);
        expect(a.type).toBe('application/json');
        expect([200, 202, 403, 404, 502]).toContain(a.status);
        const json = JSON.parse(a.text);
        // a v2 media reply ({id, status_code, status_message}) is a valid answer, not an error body
        const mediaReply = typeof json.id === 'string' && 'status_code' in json && typeof json.status_message === 'string';
        if (a.status !== 200 || !('images' in json || 'gallery_ids' in json || mediaReply)) {
          expect(wellFormed(new URL(KAIROS + s.path).pathname.replace(/\/+/g, '/'), a.text)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});
