// Replaces globalThis.XMLHttpRequest with a subclass of the native one: requests opened to a
// Kairos base URL are answered in-page by the engine (readyState 1→2→3→4, status, headers,
// responseText/response for every responseType, on*-handlers and listeners, loadstart/progress/
// load/loadend, abort, timeout); any other URL uses the native implementation untouched.
// This is what jQuery.ajax and axios' default (XHR) adapter go through. Synchronous requests
// to the engine cannot be answered (the engine is asynchronous) and throw a NetworkError.
import { keepForm } from './form-bodies.ts';
import { baseUrlMatcher, type ShimOptions } from './base-url.ts';
import type { Shim } from './fetch-shim.ts';
import type { RequestHandler } from './router.ts';

const UNSENT = 0;
const OPENED = 1;
const HEADERS_RECEIVED = 2;
const LOADING = 3;
const DONE = 4;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NORMALIZED_METHODS = /^(DELETE|GET|HEAD|OPTIONS|POST|PUT)$/i;

const invalidState = (what: string) => new DOMException(`Failed to execute '${what}' on 'XMLHttpRequest': The object's state must be OPENED.`, 'InvalidStateError');

type OpenArgs = [method: string, url: string | URL, async?: boolean, username?: string | null, password?: string | null];

export function installXhrShim(handler: RequestHandler, options: ShimOptions = {}): Shim {
  const Native = globalThis.XMLHttpRequest;
  if (typeof Native !== 'function') throw new TypeError('installXhrShim: XMLHttpRequest does not exist in this context');
  const match = baseUrlMatcher(options.baseUrls);
  let active = true;

  class KairosXMLHttpRequest extends Native {
    /** true while this object is serving a request to the engine */
    #local = false;
    #method = 'GET';
    #url = '';
    #path = '/';
    #async = true;
    #headers = new Headers();
    #state = UNSENT;
    #sent = false;
    #uploadDone = true;
    #status = 0;
    #statusText = '';
    #responseHeaders: Headers | null = null;
    #bytes: ArrayBuffer | null = null;
    #cache: { type: XMLHttpRequestResponseType; value: unknown } | null = null;
    /** bumped by open/abort/timeout: answers of an older generation are dropped */
    #generation = 0;
    #controller: AbortController | null = null;
    #timer: ReturnType<typeof setTimeout> | undefined;

    override open(...args: OpenArgs): void {
      const [method, url] = args;
      const path = active ? match(String(url)) : null;
      this.#cancel();
      if (path === null) {
        this.#local = false;
        (super.open as (...a: unknown[]) => void)(...args);
        return;
      }
      const m = String(method);
      if (!TOKEN.test(m)) throw new DOMException(`Failed to execute 'open' on 'XMLHttpRequest': '${m}' is not a valid HTTP method.`, 'SyntaxError');
      if (/^(CONNECT|TRACE|TRACK)$/i.test(m)) throw new DOMException(`Failed to execute 'open' on 'XMLHttpRequest': '${m}' HTTP method is unsupported.`, 'SecurityError');
      this.#local = true;
      this.#method = NORMALIZED_METHODS.test(m) ? m.toUpperCase() : m;
      this.#url = new URL(String(url), globalThis.location?.href).href;
      this.#path = path;
      this.#async = args.length < 3 || args[2] !== false;
      this.#headers = new Headers();
      this.#sent = false;
      this.#resetResponse();
      this.#state = OPENED;
      this.#fire('readystatechange');
    }

    override setRequestHeader(name: string, value: string): void {
      if (!this.#local) return super.setRequestHeader(name, value);
      if (this.#state !== OPENED || this.#sent) throw invalidState('setRequestHeader');
      try {
        this.#headers.append(name, value);
      } catch {
        throw new DOMException(`Failed to execute 'setRequestHeader' on 'XMLHttpRequest': '${name}' is not a valid HTTP header field name or value.`, 'SyntaxError');
      }
    }

    override send(body?: Document | XMLHttpRequestBodyInit | null): void {
      if (!this.#local) return super.send(body);
      if (this.#state !== OPENED || this.#sent) throw invalidState('send');
      if (!this.#async) {
        throw new DOMException('Synchronous XMLHttpRequest to the in-page Kairos engine is not supported; use an asynchronous request.', 'NetworkError');
      }
      const method = this.#method;
      const hasBody = body !== null && body !== undefined && method !== 'GET' && method !== 'HEAD';
      const payload = hasBody && typeof Document !== 'undefined' && body instanceof Document ? new XMLSerializer().serializeToString(body) : body;
      const controller = new AbortController();
      this.#controller = controller;
      this.#sent = true;
      this.#uploadDone = !hasBody;
      const generation = ++this.#generation;
      this.#fire('loadstart', this, 0, 0);
      if (hasBody) this.#fire('loadstart', this.upload, 0, 0);
      if (generation !== this.#generation) return;
      if (this.timeout > 0) {
        this.#timer = setTimeout(() => {
          if (generation !== this.#generation) return;
          this.#cancel();
          this.#requestError('timeout');
        }, this.timeout);
      }
      let request: Request;
      try {
        request = new Request(this.#url, {
          method,
          headers: this.#headers,
          body: hasBody ? (payload as BodyInit) : null,
          signal: controller.signal,
        });
        if (hasBody) keepForm(request, payload); // WebKit cannot read a FormData body with files back (form-bodies.ts)
      } catch {
        queueMicrotask(() => {
          if (generation !== this.#generation) return;
          this.#cancel();
          this.#requestError('error');
        });
        return;
      }
      handler
        .handle(request, { path: this.#path })
        .then(async (response) => ({ response, bytes: await response.arrayBuffer() }))
        .then(
          ({ response, bytes }) => {
            if (generation === this.#generation) this.#deliver(response, bytes, generation);
          },
          () => {
            if (generation !== this.#generation) return;
            this.#cancel();
            this.#requestError('error');
          },
        );
    }

    override abort(): void {
      if (!this.#local) return super.abort();
      const wasInFlight = (this.#state === OPENED && this.#sent) || this.#state === HEADERS_RECEIVED || this.#state === LOADING;
      this.#cancel();
      if (wasInFlight) this.#requestError('abort');
      if (this.#state === DONE) {
        this.#state = UNSENT;
        this.#resetResponse();
      }
    }

    override get readyState(): number {
      return this.#local ? this.#state : super.readyState;
    }

    override get status(): number {
      return this.#local ? this.#status : super.status;
    }

    override get statusText(): string {
      return this.#local ? this.#statusText : super.statusText;
    }

    override get responseURL(): string {
      if (!this.#local) return super.responseURL;
      return this.#responseHeaders ? this.#url : '';
    }

    override get responseText(): string {
      if (!this.#local) return super.responseText;
      if (this.responseType !== '' && this.responseType !== 'text') {
        throw new DOMException(
          `Failed to read the 'responseText' property from 'XMLHttpRequest': The value is only accessible if the object's 'responseType' is '' or 'text' (was '${this.responseType}').`,
          'InvalidStateError',
        );
      }
      if ((this.#state !== LOADING && this.#state !== DONE) || !this.#bytes) return '';
      return new TextDecoder().decode(this.#bytes);
    }

    override get responseXML(): Document | null {
      return this.#local ? null : super.responseXML;
    }

    override get response(): unknown {
      if (!this.#local) return super.response;
      const type = this.responseType;
      if (type === '' || type === 'text') return this.responseText;
      if (this.#state !== DONE || !this.#bytes) return null;
      if (this.#cache?.type === type) return this.#cache.value;
      let value: unknown = null;
      if (type === 'json') {
        try {
          value = JSON.parse(new TextDecoder().decode(this.#bytes));
        } catch {
          value = null;
        }
      } else if (type === 'arraybuffer') value = this.#bytes.slice(0);
      else if (type === 'blob') value = new Blob([this.#bytes], { type: this.#responseHeaders?.get('content-type') ?? '' });
      this.#cache = { type, value };
      return value;
    }

    override getResponseHeader(name: string): string | null {
      if (!this.#local) return super.getResponseHeader(name);
      if (this.#state < HEADERS_RECEIVED || !this.#responseHeaders) return null;
      try {
        return this.#responseHeaders.get(name);
      } catch {
        return null;
      }
    }

    override getAllResponseHeaders(): string {
      if (!this.#local) return super.getAllResponseHeaders();
      if (this.#state < HEADERS_RECEIVED || !this.#responseHeaders) return '';
      let out = '';
      for (const [k, v] of this.#responseHeaders) out += `${k}: ${v}\r\n`;
      return out;
    }

    override overrideMimeType(mime: string): void {
      if (!this.#local) return super.overrideMimeType(mime);
      if (this.#state === LOADING || this.#state === DONE) throw invalidState('overrideMimeType');
      // the engine always answers application/json in UTF-8: nothing to override
    }

    // ------------------------------------------------------------ internals

    #fire(type: string, target: EventTarget = this, loaded?: number, total?: number): void {
      const event = loaded === undefined ? new Event(type) : new ProgressEvent(type, { lengthComputable: total !== undefined && total > 0, loaded, total: total ?? 0 });
      target.dispatchEvent(event);
    }

    /** Drops the request in flight (its answer, its timer, its signal). */
    #cancel(): void {
      this.#generation++;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#controller?.abort(new DOMException('The request was aborted.', 'AbortError'));
      this.#controller = null;
    }

    #resetResponse(): void {
      this.#status = 0;
      this.#statusText = '';
      this.#responseHeaders = null;
      this.#bytes = null;
      this.#cache = null;
    }

    /** The spec's "request error steps": DONE with a network error, then `type` and loadend. */
    #requestError(type: 'abort' | 'timeout' | 'error'): void {
      const generation = this.#generation;
      this.#state = DONE;
      this.#sent = false;
      this.#resetResponse();
      this.#fire('readystatechange');
      if (generation !== this.#generation) return;
      if (!this.#uploadDone) {
        this.#uploadDone = true;
        this.#fire(type, this.upload, 0, 0);
        this.#fire('loadend', this.upload, 0, 0);
      }
      this.#fire(type, this, 0, 0);
      if (generation !== this.#generation) return;
      this.#fire('loadend', this, 0, 0);
    }

    #deliver(response: Response, bytes: ArrayBuffer, generation: number): void {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#controller = null;
      if (!this.#uploadDone) {
        this.#uploadDone = true;
        this.#fire('progress', this.upload, 0, 0);
        this.#fire('load', this.upload, 0, 0);
        this.#fire('loadend', this.upload, 0, 0);
        if (generation !== this.#generation) return;
      }
      this.#status = response.status;
      this.#statusText = response.statusText;
      this.#responseHeaders = response.headers;
      this.#state = HEADERS_RECEIVED;
      this.#fire('readystatechange');
      if (generation !== this.#generation) return;
      this.#bytes = bytes;
      this.#state = LOADING;
      this.#fire('readystatechange');
      if (generation !== this.#generation) return;
      this.#fire('progress', this, bytes.byteLength, bytes.byteLength);
      if (generation !== this.#generation) return;
      this.#state = DONE;
      this.#sent = false;
      this.#fire('readystatechange');
      if (generation !== this.#generation) return;
      this.#fire('load', this, bytes.byteLength, bytes.byteLength);
      if (generation !== this.#generation) return;
      this.#fire('loadend', this, bytes.byteLength, bytes.byteLength);
    }
  }

  Object.defineProperty(KairosXMLHttpRequest, 'name', { value: 'XMLHttpRequest' });
  globalThis.XMLHttpRequest = KairosXMLHttpRequest;
  return {
    uninstall() {
      active = false;
      if (globalThis.XMLHttpRequest === KairosXMLHttpRequest) globalThis.XMLHttpRequest = Native;
    },
  };
}
