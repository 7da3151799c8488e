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
  /**
   * the same while the worker's ONNX Runtime or its model peer is starting (default 10 s, pinged
   * every second): no step of a start holds the thread for seconds, and Firefox can deadlock there
   */
  startUnresponsiveMs?: number;
}

/**
 * Calls that may be sent again, once, to a fresh worker when theirs died while its ONNX Runtime
 * was starting: they keep no state in the worker and change nothing outside it.
 */
const REPLAYABLE = new Set(['init', 'backendInfo', 'modelRuns', 'modelLoads', 'loadModel', 'warmUp', 'analyze']);

/** What a call transfers and the worker empties (a decoded input's copy, engine/vision-port.ts); an ImageData is copied. */
type TransferredImage = ImageBitmap | VideoFrame;
const isTransferredImage = (value: unknown): value is TransferredImage =>
  (typeof ImageBitmap !== 'undefined' && value instanceof ImageBitmap) ||
  (typeof VideoFrame !== 'undefined' && value instanceof VideoFrame);

/** A call's arguments with a fresh copy of each transferred image, to send it once more. */
interface SpareArgs {
  args: unknown[];
  /** closes the copies (a no-op for those already sent: a transfer empties them) */
  close(): void;
}

/**
 * The copies are made only while the worker is starting (the only time a call is sent again),
 * from the engine's own copy, so the pixels are those of the call: a `<video>` or a canvas the
 * app keeps drawing on may have moved on by then.
 */
async function spareArgs(args: unknown[]): Promise<SpareArgs | undefined> {
  if (!args.some(isTransferredImage)) return undefined;
  const copies: TransferredImage[] = [];
  const copied = await Promise.all(
    args.map(async (value) => {
      if (!isTransferredImage(value)) return value;
      const copy = value instanceof ImageBitmap ? await createImageBitmap(value) : value.clone();
      copies.push(copy);
      return Comlink.transfer(copy, [copy]);
    }),
  );
  return { args: copied, close: () => copies.forEach((copy) => copy.close()) };
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
  /** its ONNX Runtime or a worker it starts (the model peer) is not up yet, as its last ping said */
  starting: boolean;
  /** when its ping in flight was sent (undefined: none in flight), and when its last one was */
  pingSince?: number;
  lastPing: number;
  /** why it was ended, once it is dead */
  death?: EngineError;
}

const deadWorker = (detail: string) =>
  new EngineError('UNAVAILABLE', `temporarily unavailable: the vision worker ${detail}; it is restarted for the next request, send this one again`);

/** `url`: where the built worker is served, when the bundled default cannot be found (library use). */
export function startVisionWorker(url?: string | URL, options: VisionWorkerOptions = {}): VisionWorker {
  const unresponsiveMs = options.unresponsiveMs ?? 60_000;
  const pingEveryMs = options.pingEveryMs ?? 10_000;
  const startUnresponsiveMs = Math.min(unresponsiveMs, options.startUnresponsiveMs ?? 10_000);
  const startPingEveryMs = Math.min(pingEveryMs, 1000);
  let current: Incarnation | undefined;
  let restarts = 0;
  let terminated = false;
  /** init()'s environment, replayed into a restarted worker */
  let env: RuntimeEnv | undefined;
  /** the calls waiting for an answer (method and start), named when the watchdog gives up on the worker */
  const pending = new Map<number, { method: string; since: number }>();
  let nextCall = 0;
  let watchdog: ReturnType<typeof setInterval> | undefined;

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
      starting: true,
      lastPing: -Infinity,
      kill(error) {
        if (incarnation.dead) return;
        incarnation.dead = true;
        incarnation.death = error;
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

  /**
   * Runs every `startPingEveryMs` while calls are pending: pings the worker (at the slower pace
   * once it says it has started) and ends one that left a ping unanswered past the bound. Firefox can
   * deadlock the vision worker's thread while ORT starts its WASM thread there (~1 start in 40
   * under load: docs/testing.md), and nothing inside the worker runs again: only this sees it.
   */
  function checkPulse(): void {
    const incarnation = current;
    if (!incarnation || incarnation.dead || pending.size === 0) return;
    const now = performance.now();
    if (incarnation.pingSince !== undefined) {
      const bound = incarnation.starting ? startUnresponsiveMs : unresponsiveMs;
      if (now - incarnation.pingSince > bound) {
        const why = incarnation.starting ? 'while it was starting: ONNX Runtime or its model peer' : 'it crashed or ran out of memory';
        incarnation.kill(deadWorker(`stopped answering for ${Math.round(bound / 1000)} s (${why}; ${waitingOn()})`));
      }
      return;
    }
    if (now - incarnation.lastPing < (incarnation.starting ? startPingEveryMs : pingEveryMs)) return;
    ping(incarnation);
  }

  /** Sends one ping; its answer says whether the worker is still starting. */
  function ping(incarnation: Incarnation): void {
    incarnation.pingSince = incarnation.lastPing = performance.now();
    const answered = (pulse?: { starting?: boolean }) => {
      incarnation.pingSince = undefined;
      if (typeof pulse?.starting === 'boolean') incarnation.starting = pulse.starting;
    };
    // a rejected ping is an answer too (e.g. a worker without pulse()): only silence counts
    incarnation.remote.pulse().then(answered, () => answered());
  }

  /**
   * After an answer from a worker still taken as starting, asks whether it still is: the
   * watchdog pings only calls that take over a second, and a worker taken as starting has each
   * decoded image copied before it is sent (spareArgs).
   */
  function refreshStarting(incarnation: Incarnation): void {
    if (incarnation.starting && incarnation.pingSince === undefined && !incarnation.dead) ping(incarnation);
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
    watchdog ??= setInterval(checkPulse, startPingEveryMs);
    // a worker lost while its ORT started (a start, not the request, failed): sent once more to a fresh one
    let replays = REPLAYABLE.has(method) ? 1 : 0;
    let spare: SpareArgs | undefined;
    try {
      for (;;) {
        const incarnation = await live();
        if (method === 'init') env = args[0] as RuntimeEnv;
        // a copy that cannot be made only means the call is not sent again
        if (replays > 0 && incarnation.starting) spare = await spareArgs(args).catch(() => undefined);
        const fn = (incarnation.remote as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
        try {
          const value = await Promise.race([fn(...args), incarnation.died]);
          incarnation.answered = true;
          refreshStarting(incarnation);
          return value;
        } catch (error) {
          const lostAtStart = incarnation.dead && error === incarnation.death && incarnation.starting;
          // a transferred image is gone with the worker: only a copy made before can be sent again
          const sendable = !args.some(isTransferredImage) || spare !== undefined;
          if (!lostAtStart || !sendable || replays-- <= 0) throw error;
          if (spare) args = spare.args;
        }
      }
    } finally {
      spare?.close();
      pending.delete(id);
      if (pending.size === 0) {
        clearInterval(watchdog);
        watchdog = undefined;
        if (current) current.pingSince = undefined;
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
