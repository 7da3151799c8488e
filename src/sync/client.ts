// HTTP to the sync service: push, pull, gallery settings and the live event stream. Every
// reply is checked against the protocol's schemas; HTTP errors become SyncErrors by code.
import { z } from 'zod';
import {
  APP_ID_HEADER,
  APP_KEY_HEADER,
  ErrorBodySchema,
  GalleriesResponseSchema,
  GallerySettingsSchema,
  MAX_PULL_LIMIT,
  PullResponseSchema,
  RetentionSettingsSchema,
  type RetentionSettings,
  PushResponseSchema,
  type Change,
  type Encryption,
  type GallerySettings,
  type PullResponse,
  type PushResult,
} from './protocol.ts';
import { SyncError } from './errors.ts';

const REQUEST_TIMEOUT_MS = 30_000;
/** the service sends a comment every 15 s: a stream silent for longer is dead (a vanished host sends no reset) */
const STREAM_SILENCE_MS = 40_000;

export class SyncClient {
  private readonly base: string;

  constructor(
    url: string,
    private readonly appId: string,
    private readonly appKey: string,
  ) {
    this.base = url.endsWith('/') ? url : `${url}/`;
  }

  private headers(json: boolean): Record<string, string> {
    return { [APP_ID_HEADER]: this.appId, [APP_KEY_HEADER]: this.appKey, ...(json ? { 'content-type': 'application/json' } : {}) };
  }

  private async request<T>(schema: z.ZodType<T>, method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(new URL(path, this.base), {
      method,
      headers: this.headers(body !== undefined),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const json: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const error = ErrorBodySchema.safeParse(json);
      const code = error.success ? error.data.error.code : `HTTP ${response.status}`;
      const message = error.success ? error.data.error.message : response.statusText;
      if (response.status === 401) throw new SyncError('UNAUTHORIZED');
      if (code === 'CURSOR_AHEAD') throw new SyncError('CURSOR_AHEAD');
      // 429, 503 and proxies' 502/504: the service is there but cannot answer now — like offline
      if (response.status === 429 || response.status >= 500) throw new TypeError(`sync service: ${code}: ${message}`);
      throw new SyncError('SERVICE', `${code}: ${message}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new SyncError('SERVICE', `unexpected reply to ${method} ${path}: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  async push(changes: Change[]): Promise<PushResult[]> {
    return (await this.request(PushResponseSchema, 'POST', 'v1/push', { changes })).results;
  }

  pull(after: string, galleries?: readonly string[]): Promise<PullResponse> {
    // the largest page the service gives: a bootstrap's pages each cost a round trip and a few transactions
    const query = new URLSearchParams({ after, limit: String(MAX_PULL_LIMIT) });
    if (galleries?.length) query.set('galleries', galleries.join(','));
    return this.request(PullResponseSchema, 'GET', `v1/pull?${query}`);
  }

  async galleries(): Promise<GallerySettings[]> {
    return (await this.request(GalleriesResponseSchema, 'GET', 'v1/galleries')).galleries;
  }

  putGallery(gallery: string, encryption: Encryption | null): Promise<GallerySettings> {
    return this.request(GallerySettingsSchema, 'PUT', `v1/galleries/${encodeURIComponent(gallery)}`, { encryption });
  }

  /** The retention the service enforces itself on `gallery` (days after enrollment; null: none). */
  putRetention(gallery: string, days: number | null): Promise<RetentionSettings> {
    return this.request(RetentionSettingsSchema, 'PUT', `v1/galleries/${encodeURIComponent(gallery)}/retention`, { days });
  }

  /**
   * Reads the service's event stream until it ends or `signal` aborts, calling `onChange` for
   * each nudge (and once it is open: changes may have come while it was not). fetch, not
   * EventSource: the credentials go in headers, never in a URL. Ends when the stream has
   * been silent for STREAM_SILENCE_MS.
   */
  async events(signal: AbortSignal, onChange: () => void): Promise<void> {
    const response = await fetch(new URL('v1/events', this.base), { headers: this.headers(false), signal, cache: 'no-store' });
    if (response.status === 401) throw new SyncError('UNAUTHORIZED');
    if (!response.ok || !response.body) throw new TypeError(`sync events: HTTP ${response.status}`);
    onChange();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let silence: ReturnType<typeof setTimeout> | undefined;
    for (;;) {
      clearTimeout(silence);
      silence = setTimeout(() => void reader.cancel().catch(() => {}), STREAM_SILENCE_MS);
      const { value, done } = await reader.read().finally(() => clearTimeout(silence));
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (/^event: change$/m.test(event)) onChange();
      }
    }
  }
}
