// One HTTP-shaped request → one Response, the way the Kairos service answers it:
//   route (404/3002) → authenticate (403/3003) → read the body (1001) → validate (1002/1003/1000)
//   → the endpoint's service → JSON with the interface's status.
// handleRequest never throws and never rejects: an unexpected exception becomes 502 + 3001.
// Face endpoints answer errors as {"Errors":[{ErrCode,Message}]}, the v2 (emotion) endpoints as
// {code, message}; every answer is application/json. See docs/api.md.
import { keptForm } from './form-bodies.ts';
import { EngineError } from '../errors.ts';
import { errorBodyOf, familyOfPath, httpStatusOf, internalFailure, STATUS_TEXT, type EndpointFamily } from './error-body.ts';
import type { Credential } from './options.ts';
import { REQUEST_SCHEMAS, type ServiceName, type Services } from './services.ts';
import { parseRequest, requireObject, type MessageStyle } from './validate.ts';

export interface HandleOptions {
  /**
   * The route path ("/detect", "/v2/media/abc") when it is not the request URL's pathname —
   * the shims pass the part of the URL after their base URL.
   */
  path?: string;
}

export interface RouterOptions extends HandleOptions {
  /** accepted app_id/app_key pairs */
  credentials: readonly Credential[];
}

/** Anything that answers requests: the engine (engine.handle) or a router over test services. */
export interface RequestHandler {
  handle(request: Request, options?: HandleOptions): Promise<Response>;
}

type Method = 'GET' | 'POST' | 'DELETE';

interface Route {
  method: Method;
  /** segments; ":id" matches one path segment */
  path: string;
  service: ServiceName;
}

/** Every endpoint of the interface. */
export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/enroll', service: 'enroll' },
  { method: 'POST', path: '/verify', service: 'verify' },
  { method: 'POST', path: '/recognize', service: 'recognize' },
  { method: 'POST', path: '/detect', service: 'detect' },
  { method: 'POST', path: '/gallery/list_all', service: 'galleryListAll' },
  { method: 'POST', path: '/gallery/view', service: 'galleryView' },
  { method: 'POST', path: '/gallery/view_subject', service: 'galleryViewSubject' },
  { method: 'POST', path: '/gallery/remove', service: 'galleryRemove' },
  { method: 'POST', path: '/gallery/remove_subject', service: 'galleryRemoveSubject' },
  { method: 'POST', path: '/v2/media', service: 'mediaPost' },
  { method: 'GET', path: '/v2/media/:id', service: 'mediaGet' },
  { method: 'DELETE', path: '/v2/media/:id', service: 'mediaDelete' },
  { method: 'GET', path: '/v2/analytics/:id', service: 'analyticsGet' },
];

/** Collapses repeated slashes ("https://api.kairos.com//detect") and drops a trailing one. */
export function normalizePath(path: string): string {
  const p = ('/' + path).replace(/\/{2,}/g, '/');
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

interface Match {
  route: Route;
  pathParams: Record<string, string>;
}

function matchPath(route: Route, segments: readonly string[]): Record<string, string> | null {
  const pattern = route.path.split('/');
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const s = segments[i]!;
    if (p.startsWith(':')) {
      if (s === '') return null;
      params[p.slice(1)] = decodeSegment(s);
    } else if (p !== s) return null;
  }
  return params;
}

/** The route for a method and a normalized path, or 404/3002. */
export function matchRoute(method: string, path: string): Match {
  const segments = path.split('/');
  const m = method.toUpperCase();
  let other: Route | undefined;
  for (const route of ROUTES) {
    const pathParams = matchPath(route, segments);
    if (!pathParams) continue;
    if (route.method === m) return { route, pathParams };
    other ??= route;
  }
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  throw new EngineError(
    'INVALID_ENDPOINT',
    other ? `invalid endpoint: ${m} ${shown} (this endpoint takes ${other.method})` : `invalid endpoint: ${m} ${shown}`,
  );
}

/** The account of the request's app_id/app_key headers, or 403/3003. */
export function authenticate(headers: Headers, credentials: readonly Credential[]): string {
  const appId = headers.get('app_id');
  const appKey = headers.get('app_key');
  if (appId === null || appKey === null || appId === '' || appKey === '') {
    const missing = [appId ? null : 'app_id', appKey ? null : 'app_key'].filter(Boolean).join(' and ');
    throw new EngineError('AUTHENTICATION', `invalid authentication parameters: the ${missing} header is missing`);
  }
  const ok = credentials.some((c) => c.appId === appId && c.appKey === appKey);
  if (!ok) throw new EngineError('AUTHENTICATION', 'invalid authentication parameters: unknown app_id or wrong app_key');
  return appId;
}

/** `store_image: false` (also "0", "no") turns image storage off; anything else leaves it on. */
export function storeImageOf(headers: Headers): boolean {
  const v = headers.get('store_image');
  return v === null || !['false', '0', 'no'].includes(v.trim().toLowerCase());
}

// ---------------------------------------------------------------- parameters

/** Parameters that arrive as text in form bodies and query strings and are numbers in JSON. */
const NUMBER_FIELDS = new Set(['minHeadScale', 'threshold', 'max_num_results', 'timeout']);
/** … and booleans in JSON. */
const BOOLEAN_FIELDS = new Set(['multiple_faces']);
const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A text value of a form field or query parameter → its JSON type when it reads as one. */
export function coerceText(name: string, value: string): unknown {
  const t = value.trim();
  if (NUMBER_FIELDS.has(name) && NUMBER_TEXT.test(t)) return Number(t);
  if (BOOLEAN_FIELDS.has(name)) {
    const l = t.toLowerCase();
    if (l === 'true' || l === '1') return true;
    if (l === 'false' || l === '0') return false;
  }
  return value;
}

type Params = Record<string, unknown>;

/** Sets an own property even for names like "__proto__". */
function put(target: Params, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Form fields or query parameters (the first value of each name) with text coerced. */
function fromEntries(entries: Iterable<[string, FormDataEntryValue]>): Params {
  const out: Params = {};
  for (const [k, v] of entries) {
    if (Object.prototype.hasOwnProperty.call(out, k)) continue;
    put(out, k, typeof v === 'string' ? coerceText(k, v) : v);
  }
  return out;
}

function badBody(style: MessageStyle, face: string, emotion: string): EngineError {
  return new EngineError('BAD_CONTENT_TYPE', style === 'emotion' ? emotion : face);
}

function parseJsonObject(text: string, style: MessageStyle): Params {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw badBody(style, `malformed JSON body: ${why}`, `Malformed JSON body: ${why}.`);
  }
  return requireObject(value, style);
}

const JSON_TYPES = new Set(['', 'application/json', 'text/json', 'text/plain']);

/**
 * The body's parameters by Content-Type: JSON (also text/plain and no type, as fetch sends a
 * string body), multipart/form-data (files stay Blobs), application/x-www-form-urlencoded
 * (a JSON object sent under that type, jQuery's default, is read as JSON). Anything else: 1001.
 */
export async function readBody(request: Request, style: MessageStyle): Promise<Params> {
  // a shim's multipart request: the FormData it was given (WebKit cannot read such a body back: form-bodies.ts)
  const kept = keptForm(request);
  if (kept) return fromEntries(kept.entries());
  if (request.body === null) return {};
  if (request.bodyUsed) throw badBody(style, 'the request body was already read', 'The request body was already read.');
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') {
    let form: FormData;
    try {
      form = await request.formData();
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw badBody(style, `malformed multipart/form-data body: ${why}`, `Malformed multipart/form-data body: ${why}.`);
    }
    return fromEntries(form.entries());
  }
  const isJsonType = JSON_TYPES.has(type) || type.endsWith('+json');
  if (!isJsonType && type !== 'application/x-www-form-urlencoded') {
    throw badBody(
      style,
      `unsupported content type: ${type}; send application/json, multipart/form-data or application/x-www-form-urlencoded`,
      `Unsupported content type: ${type}.`,
    );
  }
  let text: string;
  try {
    text = await request.text();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw badBody(style, `the request body could not be read: ${why}`, `The request body could not be read: ${why}.`);
  }
  if (text.trim() === '') return {};
  if (isJsonType) return parseJsonObject(text, style);
  // urlencoded
  if (text.trimStart().startsWith('{')) {
    try {
      return parseJsonObject(text, style);
    } catch {
      // not JSON after all: read it as a form
    }
  }
  return fromEntries(new URLSearchParams(text).entries());
}

// ---------------------------------------------------------------- the handler

function jsonResponse(status: number, body: unknown): Response {
  const text = JSON.stringify(body);
  if (typeof text !== 'string') throw new Error('a service returned no JSON body');
  return new Response(text, { status, statusText: STATUS_TEXT[status] ?? '', headers: { 'Content-Type': 'application/json' } });
}

/** Success status: 202 for a /v2/media still processing (status_code 2), else 200. */
function successStatus(service: ServiceName, body: unknown): number {
  if (service !== 'mediaPost' || typeof body !== 'object' || body === null) return 200;
  const code = (body as { status_code?: unknown }).status_code;
  return code === 2 || code === '2' ? 202 : 200;
}

function errorResponse(family: EndpointFamily, e: unknown): Response {
  const f = e instanceof EngineError ? e.failure : internalFailure(e);
  return new Response(JSON.stringify(errorBodyOf(family, f)), {
    status: httpStatusOf(f),
    statusText: STATUS_TEXT[httpStatusOf(f)] ?? '',
    headers: { 'Content-Type': 'application/json' },
  });
}

/** Answers one request. Never throws, never rejects. */
export async function handleRequest(request: Request, services: Services, options: RouterOptions): Promise<Response> {
  let family: EndpointFamily = 'face';
  try {
    const url = new URL(request.url);
    const path = normalizePath(options.path ?? url.pathname);
    family = familyOfPath(path);
    const style: MessageStyle = family;
    const { route, pathParams } = matchRoute(request.method, path);
    const appId = authenticate(request.headers, options.credentials);
    let raw: Params = { ...pathParams };
    if (route.method === 'POST') {
      const query = fromEntries(url.searchParams.entries());
      const body = await readBody(request, style);
      raw = { ...query, ...body };
    }
    const params = parseRequest(REQUEST_SCHEMAS[route.service], raw, { style });
    const service = services[route.service] as (call: unknown) => Promise<unknown>;
    const result = await service({ appId, storeImage: storeImageOf(request.headers), signal: request.signal, params });
    return jsonResponse(successStatus(route.service, result), result);
  } catch (e) {
    try {
      return errorResponse(family, e);
    } catch {
      return errorResponse(family, new EngineError('UNAVAILABLE', 'temporarily unavailable: internal error'));
    }
  }
}

/** A RequestHandler over given services (what the engine does; also handy for tests and mocks). */
export function createRequestHandler(services: Services, options: RouterOptions): RequestHandler {
  return { handle: (request, o) => handleRequest(request, services, { ...options, ...o }) };
}
