// The only module that talks to onnxruntime-web: picks the execution provider, sets the
// WASM paths and thread count, and creates sessions. Everything else sees plain data.
import type { InferenceSession } from 'onnxruntime-web';
import { ortBuildFiles, type BackendPreference, type RuntimeEnv } from '../env.ts';
import { EngineError } from '../errors.ts';
import type { ModelEntry } from '../models/manifest.ts';
import { compileWasm, withPrecompiledWasm } from './precompiled-wasm.ts';
import { runtimeStartModel } from './runtime-start-model.ts';

type Ort = typeof import('onnxruntime-web');

export interface BackendInfo {
  backend: 'wasm' | 'webgpu';
  requested: BackendPreference;
  /** WASM threads ORT actually runs with (it drops to 1 when not cross-origin isolated) */
  threads: number;
  /** workers running models: 2 when a model peer shares the runs (src/worker/model-peer.ts); set by the vision worker */
  modelWorkers?: number;
  crossOriginIsolated: boolean;
  webgpuAdapter?: { vendor: string; architecture: string; isFallbackAdapter: boolean };
  /** why a requested or available WebGPU was not used */
  note?: string;
  /**
   * how ORT's WASM was compiled: 'early' from the start of create() (src/worker/precompiled-wasm.ts),
   * 'by ORT' when ORT fetches it itself (WebGPU's build, or the early compile failed); absent while that is not known yet
   */
  ortWasm?: 'early' | 'by ORT';
}

interface GpuAdapterLike {
  info?: { vendor?: string; architecture?: string; isFallbackAdapter?: boolean };
  isFallbackAdapter?: boolean;
}

async function findWebGpuAdapter(): Promise<GpuAdapterLike | undefined> {
  const gpu = (globalThis.navigator as Navigator & { gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> } }).gpu;
  if (!gpu) return undefined;
  try {
    return (await gpu.requestAdapter()) ?? undefined;
  } catch {
    return undefined;
  }
}

/** ORT's graph optimisation level for a session (the manifest's `sessionOptimization`). */
type SessionOptimization = ModelEntry['sessionOptimization'];

/**
 * Every shipped model had ORT's QDQ fusions applied when it was built (tools/onnx/ort-optimize.ts),
 * so the browser skips ORT's QDQ transformers even at level 'all' (kept where its layout passes,
 * which depend on the machine, pay off): on such a graph they find nothing to fuse but still run at
 * V8's baseline tier in a cold page (antispoof's session took 170–230 ms), and on antispoof they
 * moved a Quantize in front of a MaxPool whose uint8 kernel is slower (5.4 → 7.8 ms a run).
 */
/**
 * ORT for a backend, configured: each loads its own build, WebGPU the asyncify one, WASM the
 * plain one. For WASM, `precompiled` is that build's WASM compiling from now on
 * (src/worker/precompiled-wasm.ts), while ORT's loader is still to be imported.
 */
async function loadOrt(env: RuntimeEnv, webgpu: boolean): Promise<{ ort: Ort; precompiled?: { module: Promise<WebAssembly.Module | undefined>; wasmUrl: string } }> {
  const files = ortBuildFiles(env, webgpu ? 'ort-wasm-simd-threaded.asyncify' : 'ort-wasm-simd-threaded');
  const precompiled = webgpu ? undefined : { module: compileWasm(files.wasmUrl, env.downloadStallMs), wasmUrl: files.wasmUrl };
  const ort: Ort = webgpu ? await import('onnxruntime-web/webgpu') : await import('onnxruntime-web/wasm');
  ort.env.wasm.wasmPaths = files.wasmPaths;
  ort.env.wasm.numThreads = env.numThreads ?? Math.min(4, globalThis.navigator?.hardwareConcurrency ?? 1);
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  return { ort, precompiled };
}

/**
 * Thrown by a call with a session made before the engine fell back from WebGPU to WASM: the
 * caller makes its session again (src/worker/model-registry.ts) and repeats the call.
 */
export class BackendChanged extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'BackendChanged';
  }
}

const sessionOptions = (providers: string[], level: SessionOptimization) =>
  ({ executionProviders: providers, graphOptimizationLevel: level, extra: { session: { disable_quant_qdq: '1' } } }) as const;

export class OrtBackend {
  private started: Promise<void> | undefined;
  /** sessions made by the ORT in use (not by a WebGPU build fallen back from) */
  private current = new WeakSet<InferenceSession>();
  /** the latest queued call into ORT (settled or not): the next one waits for it (`inTurn`) */
  private lastCall: Promise<unknown> = Promise.resolve();
  /** why ORT's start was given up (`withinStartBound`): this ORT makes no session again */
  private stalledReason: string | undefined;
  private markStalled!: (reason: string) => void;
  /**
   * Resolves, with the reason, if ORT's start is given up: the worker is then of no use and its
   * owner must end it (src/worker/worker-broken.ts). Never resolves otherwise.
   */
  readonly stalled = new Promise<string>((resolve) => (this.markStalled = resolve));
  /** ORT has started (a session was made): the page's watchdog gives a worker more time after this */
  isUp = false;

  private constructor(
    private readonly env: RuntimeEnv,
    private ort: Ort,
    private providers: string[],
    private readonly details: BackendInfo,
    /** ORT's WASM compiling since create(), for the session creation that starts ORT (the first) */
    private precompiled: { module: Promise<WebAssembly.Module | undefined>; wasmUrl: string } | undefined,
  ) {}

  static async create(env: RuntimeEnv): Promise<OrtBackend> {
    const adapter = env.backend === 'wasm' ? undefined : await findWebGpuAdapter();
    const isFallback = adapter ? (adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false) : false;
    const webgpuAdapter = adapter
      ? { vendor: adapter.info?.vendor ?? '', architecture: adapter.info?.architecture ?? '', isFallbackAdapter: isFallback }
      : undefined;
    // A software (fallback) adapter is far slower than WASM, so "auto" only takes a real GPU.
    const useWebGpu = adapter !== undefined && (env.backend === 'webgpu' || !isFallback);
    let note: string | undefined;
    if (env.backend === 'webgpu' && !adapter) note = 'no WebGPU adapter: using WASM';
    if (env.backend === 'auto' && adapter && isFallback) note = 'WebGPU adapter is a software fallback: using WASM';

    const { ort, precompiled } = await loadOrt(env, useWebGpu);
    const info: BackendInfo = {
      backend: useWebGpu ? 'webgpu' : 'wasm',
      requested: env.backend,
      // ORT runs one thread where SharedArrayBuffer is missing (a page without COOP/COEP); engine.backend
      // is read before any session exists, so say so now rather than after ORT settles it
      threads: typeof SharedArrayBuffer === 'undefined' ? 1 : (ort.env.wasm.numThreads ?? 1),
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      webgpuAdapter,
      note,
      // WebGPU's build is fetched by ORT; the WASM build's way is known once ORT has started
      ...(precompiled ? {} : { ortWasm: 'by ORT' as const }),
    };
    return new OrtBackend(env, ort, useWebGpu ? ['webgpu', 'wasm'] : ['wasm'], info, precompiled);
  }

  /**
   * Starts ORT's WASM runtime now (fetch, compile, instantiate, its threads) instead of when the
   * first model has been downloaded: the two then overlap. Resolves when it is up; a failure is
   * not thrown here but where a real session is created.
   */
  start(): Promise<void> {
    this.started ??= this.createSession(runtimeStartModel(), 'disabled').then(
      (session) => this.release(session),
      () => undefined,
    );
    return this.started;
  }

  /** @internal (the package's types do not name onnxruntime-web: tsconfig.lib.json stripInternal) */
  async createSession(model: Uint8Array, level: SessionOptimization): Promise<InferenceSession> {
    // one creation at a time: ORT's WebGPU EP refuses a second while one is under way ("another
    // WebGPU EP inference session is being created"), and on WASM a creation is one synchronous
    // call into ORT anyway, so queueing them costs nothing
    const session = await this.inTurn('a session creation', () => {
      if (this.stalledReason) throw new EngineError('UNAVAILABLE', `temporarily unavailable: ${this.stalledReason}`);
      return this.startingOrt(() => this.ort.InferenceSession.create(model, sessionOptions(this.providers, level)));
    });
    this.current.add(session);
    this.isUp = true;
    // ORT settles the real thread count when its WASM initialises (first session).
    this.details.threads = this.ort.env.wasm.numThreads ?? 1;
    return session;
  }

  /** @internal Runs a session; on WebGPU in turn with every other call into ORT (see `inTurn`). */
  run(session: InferenceSession, feeds: InferenceSession.FeedsType): Promise<InferenceSession.ReturnType> {
    if (this.details.backend !== 'webgpu') return this.ofCurrentBackend(session).run(feeds);
    return this.inTurn('a run', () => this.ofCurrentBackend(session).run(feeds));
  }

  /** @internal Releases a session; on WebGPU in turn with every other call into ORT. */
  async release(session: InferenceSession): Promise<void> {
    // a session of the abandoned WebGPU build is left to it (its ORT may never answer again)
    if (!this.owns(session)) return;
    if (this.details.backend !== 'webgpu') return session.release();
    return this.inTurn('a release', () => session.release());
  }

  /** @internal whether `session` was made by the ORT in use (not by a WebGPU build fallen back from) */
  owns(session: InferenceSession): boolean {
    return this.current.has(session);
  }

  /** `session`, if it belongs to the backend in use (else it was made before a fall-back to WASM). */
  private ofCurrentBackend(session: InferenceSession): InferenceSession {
    if (!this.owns(session)) throw new BackendChanged(this.details.note ?? 'the backend changed');
    return session;
  }

  /**
   * Runs `call` once the previous queued call into ORT has settled. Session creations always
   * queue. On WebGPU runs and releases queue too: its ORT build is the asyncify one, whose calls
   * unwind WASM's stack while they wait for the GPU, and a second call entering ORT meanwhile
   * (a session created while another runs) corrupts the suspended one. Measured on the software
   * adapter with onnxruntime-web 1.30 alone (no project code between): a creation started while
   * a run was under way threw "RuntimeError: operation does not support unaligned accesses" and
   * the run never answered (120 s), then "memory access out of bounds"; in the engine, a /detect
   * whose detector run overlapped the next models' creation never answered, with and without
   * COOP/COEP. Queued, the same /detect answered in 48–59 s. (Upstream: microsoft/onnxruntime
   * PR #29851, "Support concurrent Session creation and execution", closed.)
   */
  private inTurn<T>(what: string, call: () => Promise<T>): Promise<T> {
    const turn = this.lastCall.then(() => (this.details.backend === 'webgpu' ? this.bounded(what, call) : call()));
    this.lastCall = turn.catch(() => undefined);
    return turn;
  }

  /**
   * A WebGPU call that gives no answer within `webgpuTimeoutMs` (a lost device, a driver that
   * hangs, a GPU far slower than WASM) makes the backend fall back to WASM, for good: the call
   * throws BackendChanged, saying why, and its caller repeats it on WASM. The stalled call is
   * abandoned (an asyncify call cannot be cancelled), with the WebGPU build's memory.
   */
  private async bounded<T>(what: string, call: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), this.env.webgpuTimeoutMs)));
    try {
      const answer = await Promise.race([call(), stalled]);
      if (answer !== 'stalled') return answer;
    } finally {
      clearTimeout(timer);
    }
    const reason = `WebGPU gave no answer to ${what} within ${this.env.webgpuTimeoutMs / 1000} s: the engine runs on WASM from now on`;
    await this.fallBackToWasm(reason);
    throw new BackendChanged(reason);
  }

  private async fallBackToWasm(reason: string): Promise<void> {
    const { ort, precompiled } = await loadOrt(this.env, false);
    this.ort = ort;
    this.providers = ['wasm'];
    this.precompiled = precompiled;
    this.current = new WeakSet();
    this.details.backend = 'wasm';
    this.details.threads = typeof SharedArrayBuffer === 'undefined' ? 1 : (ort.env.wasm.numThreads ?? 1);
    this.details.note = reason;
    this.details.ortWasm = undefined;
  }

  /** Runs a session creation; the first one starts ORT, on the WASM compiled since create() if there is one. */
  private async startingOrt<T>(create: () => Promise<T>): Promise<T> {
    const precompiled = this.precompiled;
    if (!precompiled) return create();
    this.precompiled = undefined;
    const start = withPrecompiledWasm(precompiled.module, precompiled.wasmUrl, create);
    const { value, used } = await this.withinStartBound(precompiled.module, start);
    this.details.ortWasm = used ? 'early' : 'by ORT';
    return value;
  }

  /**
   * `start` (ORT's start), unless it has not settled `ortStartTimeoutMs` after ORT's WASM was
   * compiled (its download is not counted, unless that compile failed and ORT fetches the file
   * itself), or the WASM's download stopped (`downloadStallMs` without data): then ORT is given up
   * for good. Seen once in Firefox under a full test run: the first call never answered while the
   * worker's thread stayed free (docs/testing.md); a start that is stuck cannot be cancelled or
   * repeated in this worker.
   */
  private async withinStartBound<T>(compiled: Promise<unknown>, start: Promise<T>): Promise<T> {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const notStarted = `ONNX Runtime did not start within ${this.env.ortStartTimeoutMs / 1000} s of its WASM being compiled`;
    // what stopped the start: a download that stalled (compileWasm's only rejection) at once, else the bound once compiled
    const stopped = compiled.then(
      () => new Promise<string>((resolve) => {
        if (!settled) timer = setTimeout(() => resolve(notStarted), this.env.ortStartTimeoutMs);
      }),
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    let reason: string;
    try {
      const first = await Promise.race([start.then((value) => ({ value })), stopped]);
      if (typeof first !== 'string') return first.value;
      reason = first;
    } catch (error) {
      // ORT's own start failed: because its WASM's download stalled, or for a reason of its own
      const stall = await compiled.then(() => undefined, (e: unknown) => (e instanceof Error ? e.message : String(e)));
      if (stall === undefined) throw error;
      reason = stall;
    } finally {
      settled = true;
      clearTimeout(timer);
    }
    this.stalledReason = reason;
    this.markStalled(reason);
    throw new EngineError('UNAVAILABLE', `temporarily unavailable: ${reason}`);
  }

  /** @internal */
  tensor(data: Float32Array, dims: readonly number[]) {
    return new this.ort.Tensor('float32', data, dims);
  }

  get info(): BackendInfo {
    return { ...this.details };
  }
}
