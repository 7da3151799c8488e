// How the page talks to the engine: the same HTTP requests a Kairos client sends, through
// the in-page fetch shim, so the developer panel can show each exact request and response.
// Calls the HTTP surface has no shape for (progress, export, thumbnails) go through the
// typed ESM API and are logged too, as what they are.
// the one constant, not the engine's entry: the screens load before the engine's code does
import { DEFAULT_BASE_URLS } from '../../api/base-url.ts';
import { formatBytes } from './dom.ts';

export interface Exchange {
  /** "POST /detect" or "engine.exportGallery(…)" */
  title: string;
  /** what was sent, for display: headers and body with files summarised */
  request: unknown;
  /** the HTTP status, absent for typed calls */
  status?: number;
  response: unknown;
  ms: number;
  at: Date;
}

export type Body = Record<string, string | number | boolean | Blob | undefined>;

/** What a response body means to a person (error bodies of both families). */
export interface ApiError {
  code: number;
  message: string;
}

export function errorOf(body: unknown): ApiError | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const errors = (body as { Errors?: { ErrCode: number; Message: string }[] }).Errors;
  if (Array.isArray(errors) && errors[0]) return { code: errors[0].ErrCode, message: errors[0].Message };
  const { code, message } = body as { code?: unknown; message?: unknown };
  if (typeof code === 'number' && typeof message === 'string') return { code, message };
  return undefined;
}

/** A file, blob or long string as a short readable stand-in. */
function summarise(value: unknown): unknown {
  if (value instanceof File) return `<file "${value.name}", ${value.type || 'unknown type'}, ${formatBytes(value.size)}>`;
  if (value instanceof Blob) return `<blob, ${value.type || 'unknown type'}, ${formatBytes(value.size)}>`;
  if (typeof value === 'string' && value.length > 160) return `${value.slice(0, 60)}… (${value.length} characters)`;
  if (Array.isArray(value)) return value.map(summarise);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, summarise(v)]));
  return value;
}

export class ApiClient {
  readonly baseUrl: string;
  private readonly listeners = new Set<(exchange: Exchange) => void>();

  /**
   * `ready`: settles once the fetch shim answers baseUrl (the page mounts its first screen before
   * the engine has started; a request made meanwhile waits, and fails if the engine does).
   */
  constructor(
    readonly credentials: { appId: string; appKey: string },
    baseUrl = DEFAULT_BASE_URLS[0]!,
    private readonly ready: Promise<unknown> = Promise.resolve(),
  ) {
    this.baseUrl = baseUrl;
  }

  onExchange(listener: (exchange: Exchange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(exchange: Exchange): void {
    for (const listener of this.listeners) listener(exchange);
  }

  /**
   * One HTTP request through fetch (answered in-page by the shim). Bodies with a file go as
   * multipart/form-data, others as JSON; `headers` adds e.g. store_image.
   */
  async request<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: Body, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
    const allHeaders: Record<string, string> = { app_id: this.credentials.appId, app_key: this.credentials.appKey, ...headers };
    let payload: BodyInit | undefined;
    const fields = body ? Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) : undefined;
    if (fields && Object.values(fields).some((v) => v instanceof Blob)) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) {
        if (v instanceof File) form.append(k, v, v.name);
        else if (v instanceof Blob) form.append(k, v, `${k}.${v.type.split('/')[1] ?? 'bin'}`);
        else form.append(k, String(v));
      }
      payload = form;
      allHeaders['Content-Type'] = 'multipart/form-data'; // shown only; fetch sets the boundary
    } else if (fields) {
      payload = JSON.stringify(fields);
      allHeaders['Content-Type'] = 'application/json';
    }
    const sent = { ...allHeaders };
    if (payload instanceof FormData) delete allHeaders['Content-Type'];
    await this.ready;
    const started = performance.now();
    const response = await fetch(this.baseUrl + path, { method, headers: allHeaders, body: payload });
    const json = (await response.json()) as T;
    this.emit({
      title: `${method} ${path}`,
      request: { url: this.baseUrl + path, headers: sent, ...(fields ? { body: summarise(fields) } : {}) },
      status: response.status,
      response: json,
      ms: performance.now() - started,
      at: new Date(),
    });
    return { status: response.status, body: json };
  }

  post<T = unknown>(path: string, body: Body, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }

  /** A typed engine call, logged like a request (`response` summarised: blobs, embeddings). */
  async typed<T>(title: string, request: unknown, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await call();
    this.emit({ title, request: summarise(request), response: summarise(result), ms: performance.now() - started, at: new Date() });
    return result;
  }
}
