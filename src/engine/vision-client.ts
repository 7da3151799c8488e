// Main-thread handle on the vision worker. A worker that dies (its script fails to load, the
// browser kills it for memory) never answers again, and comlink would wait forever: calls
// here race the worker's death, a watchdog pings a worker that has calls pending, a worker whose
// ONNX Runtime never started says so (src/worker/worker-broken.ts), and a dead or broken
// worker's calls fail with 3001 while the next call starts a fresh worker (models reload on
// first use, as after a page load).
import * as Comlink from 'comlink';
import { EngineError } from '../errors.ts';
import type { RuntimeEnv } from '../env.ts';
import type { VisionWorkerApi } from '../worker/vision.worker.ts';
import { brokenReason } from '../worker/worker-broken.ts';

export interface VisionWorker {
  /** The worker's API; calls go to the live worker, and one that died is replaced on the next call. */
  api: Comlink.Remote<VisionWorkerApi>;
  /** How many workers were started because one before them died (diagnostics). */
  restarts(): number;
  terminate(): void;
}

export interface VisionWorkerOptions {
  /** a worker with calls pending that answers no ping for this long is taken as dead (default 60 s) */
  unresponsiveMs?: number;
  /** how often the watchdog pings while calls are pending (default 10 s) */
  pingEveryMs?: number;
}

function missingWorker(): never {
  throw new Error('createEngine: no workerUrl (the library build always passes one)');
}

function newWorker(url?: string | URL): Worker {
  return url
    ? new Worker(url, { type: 'module', name: 'vision' })
    : import.meta.env.KAIROS_LIBRARY // the library passes its own URL (src/package/files.ts); this one would reach apps' bundlers
      ? missingWorker()
      : new Worker(new URL('../worker/vision.worker.ts', import.meta.url), { type: 'module', name: 'vision' });
}

/** One started worker: its comlink proxy and a promise that rejects when it is found dead. */
interface Incarnation {
  worker: Worker;
  remote: Comlink.Remote<VisionWorkerApi>;
  died: Promise<never>;
  kill(error: EngineError): void;
  dead: boolean;
  /** it has answered at least once: an error event after that is a script error, not a failed start */
  answered: boolean;
}

const deadWorker = (detail: string) =>
  new EngineError('UNAVAILABLE', `temporarily unavailable: the vision worker ${detail}; it is restarted for the next request, send this one again`);

/** `url`: where the built worker is served, when the bundled default cannot be found (library use). */
export function startVisionWorker(url?: string | URL, options: VisionWorkerOptions = {}): VisionWorker {
  const unresponsiveMs = options.unresponsiveMs ?? 60_000;
  const pingEveryMs = options.pingEveryMs ?? 10_000;
  let current: Incarnation | undefined;
  let restarts = 0;
  let terminated = false;
  /** init()'s environment, replayed into a restarted worker */
  let env: RuntimeEnv | undefined;
  /** the calls waiting for an answer (method and start), named when the watchdog gives up on the worker */
  const pending = new Map<number, { method: string; since: number }>();
  let nextCall = 0;
  let watchdog: ReturnType<typeof setInterval> | undefined;
  let pingSince: number | undefined;

  function spawn(): Incarnation {
    const worker = newWorker(url);
    const remote = Comlink.wrap<VisionWorkerApi>(worker);
    let reject!: (e: EngineError) => void;
    const died = new Promise<never>((_, r) => (reject = r));
    died.catch(() => {});
    const incarnation: Incarnation = {
      worker,
      remote,
      died,
      dead: false,
      answered: false,
      kill(error) {
        if (incarnation.dead) return;
        incarnation.dead = true;
        remote[Comlink.releaseProxy]();
        worker.terminate();
        reject(error);
      },
    };
    // a worker whose ORT never started answers pings but can run nothing: it says so (worker-broken.ts)
    worker.addEventListener('message', (event) => {
      const reason = brokenReason(event.data);
      if (reason !== undefined) incarnation.kill(deadWorker(reason));
    });
    // a module that fails to load or throws at start fires "error" and never answers
    worker.addEventListener('error', (event) => {
      if (!incarnation.answered) incarnation.kill(deadWorker(`could not start (${event.message || 'its script failed to load'})`));
    });
    return incarnation;
  }

  async function live(): Promise<Incarnation> {
    if (terminated) throw new EngineError('UNAVAILABLE', 'temporarily unavailable: the engine is closed');
    if (current && !current.dead) return current;
    const fresh = spawn();
    if (current) restarts++;
    current = fresh;
    if (env) await Promise.race([fresh.remote.init(env), fresh.died]);
    return fresh;
  }

  function checkPulse(): void {
    const incarnation = current;
    if (!incarnation || incarnation.dead || pending.size === 0) return;
    if (pingSince !== undefined) {
      if (performance.now() - pingSince > unresponsiveMs) {
        pingSince = undefined;
        incarnation.kill(deadWorker(`stopped answering for ${Math.round(unresponsiveMs / 1000)} s (it crashed or ran out of memory; ${waitingOn()})`));
      }
      return;
    }
    pingSince = performance.now();
    // a rejected ping is an answer too (e.g. a failed init): only silence counts
    const answered = () => {
      if (current === incarnation) pingSince = undefined;
    };
    incarnation.remote.backendInfo().then(answered, answered);
  }

  /** e.g. "waiting on analyze (71 s), warmUp (80 s)": what to look at when a worker hangs */
  function waitingOn(): string {
    const now = performance.now();
    const calls = [...pending.values()].map((c) => `${c.method} (${Math.round((now - c.since) / 1000)} s)`);
    return `waiting on ${calls.join(', ')}`;
  }

  async function call(method: string, args: unknown[]): Promise<unknown> {
    const id = nextCall++;
    pending.set(id, { method, since: performance.now() });
    watchdog ??= setInterval(checkPulse, pingEveryMs);
    try {
      const incarnation = await live();
      if (method === 'init') env = args[0] as RuntimeEnv;
      const fn = (incarnation.remote as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
      const value = await Promise.race([fn(...args), incarnation.died]);
      incarnation.answered = true;
      return value;
    } finally {
      pending.delete(id);
      if (pending.size === 0) {
        clearInterval(watchdog);
        watchdog = undefined;
        pingSince = undefined;
      }
    }
  }

  current = spawn();
  const api = new Proxy({} as Comlink.Remote<VisionWorkerApi>, {
    get: (_, property) => (typeof property === 'string' && property !== 'then' ? (...args: unknown[]) => call(property, args) : undefined),
  });
  return {
    api,
    restarts: () => restarts,
    terminate() {
      terminated = true;
      clearInterval(watchdog);
      current?.kill(new EngineError('UNAVAILABLE', 'temporarily unavailable: the engine is closed'));
    },
  };
}
