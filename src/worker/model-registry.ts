// Loads the model manifest and creates each ONNX session once, on first use.
import type { InferenceSession } from 'onnxruntime-web';
import { GEAR_SPLIT } from '../models/catalog.ts';
import { ModelManifestSchema, type ModelEntry, type ModelManifest } from '../models/manifest.ts';
import { BackendChanged, type OrtBackend } from './ort-backend.ts';
import { unpackStoredWeights } from '../models/unpack-weights.ts';
import { downloadBytes } from './download.ts';
import { InputBuffers } from './input-buffers.ts';
import { PeerFailure, type ModelPeer } from './model-peer.ts';
import { RunScheduler, yieldToMessages } from './run-scheduler.ts';

export interface NamedOutput {
  data: Float32Array;
  dims: number[];
}

export interface LoadedModel {
  entry: ModelEntry;
  /** @internal (the package's types do not name onnxruntime-web) */
  session: InferenceSession;
  /** milliseconds spent fetching the file and creating the session */
  loadMs: number;
}

/** A model made ready ahead of use: its load and its first run (ORT's one-off kernel set-up). */
export interface ModelWarmUp {
  id: string;
  loadMs: number;
  firstRunMs: number;
}

/** How many model runs each worker answered (engine.diagnostics.modelRuns()). */
export interface ModelRuns {
  /** the vision worker's own ORT */
  here: number;
  /** the model peer's (0 without one) */
  peer: number;
  /** runs asked for, by model id (whoever answered them) */
  byModel: Record<string, number>;
}

/** A model's load as diagnostics report it. */
export interface ModelLoad {
  id: string;
  loadMs: number;
}

/**
 * Throwaway sessions per model for the code cache: two, because V8 optimises ORT's graph-rewriting
 * code only once it has run about that often, and that optimised code is what takes a first
 * visit over the amount of optimised code (~1 MB) at which V8 writes ORT's WASM to the browser's
 * code cache. Without them the cache was not written after a first /detect (0 of 4 traced cold
 * starts; with two, 4 of 4) and a returning visitor's first answer came 1065–1116 instead of
 * 854–906 ms (docs/benchmarks.md, "A traced cold start").
 */
const CODE_CACHE_SESSIONS = 2;

/**
 * With a model peer, these load in the peer first (the peer fetches them itself) and this worker
 * loads its own copy only once it is idle: a cold first request then creates their sessions and
 * runs them for the first time on the other core, while this one does detection and the mesh.
 * The per-face models a request meets last, and the heaviest to start (GEAR's first run).
 */
const PEER_FIRST_MODELS: ReadonlySet<string> = new Set(['gear', 'antispoof', 'faceapi-recognition']);

/**
 * Models that can also run as parts spread over two runtimes (src/models/catalog.ts GEAR_SPLIT):
 * with a peer, once the whole model has loaded here, its parts load here (and in the peer) when
 * the worker is idle; face-analyzer.ts uses them only once both are ready.
 */
const SPLIT_PARTS: ReadonlyMap<string, readonly string[]> = new Map([['gear', [GEAR_SPLIT.head, GEAR_SPLIT.tail]]]);
const PARTS: ReadonlySet<string> = new Set([...SPLIT_PARTS.values()].flat());

export class ModelRegistry {
  private readonly sessions = new Map<string, Promise<LoadedModel>>();
  /** models whose session here exists (loaded, not still loading) */
  private readonly readyHere = new Set<string>();
  /** split parts whose idle-time load was tried (a failed one is not tried again: the whole model runs) */
  private readonly partsTried = new Set<string>();
  private readonly runsByModel: Record<string, number> = {};
  /** completed loads in completion order (a failed load is retried and is not listed) */
  private readonly loadLog: ModelLoad[] = [];
  /** models that have run at least once */
  private readonly warmed = new Set<string>();
  /** unpacked bytes of models whose code-cache warm-up is still to come (manifest `codeCacheWarmUp`) */
  private readonly codeCacheWarmUps = new Map<string, Uint8Array>();
  private readonly inputs = new InputBuffers();
  /** a second worker's runtime and the queue both share (attachPeer) */
  private peer: ModelPeer | undefined;
  private localRuns = 0;
  /**
   * Every run queues here, and this worker's ORT takes one at a time: onnxruntime-web's run is
   * asynchronous, and two runs inside one ORT at once broke it ("Cannot read properties of null"
   * in its run, two batches of the recogniser started together). A peer adds its own lane.
   */
  private readonly scheduler = new RunScheduler<Record<string, NamedOutput>>(
    [
      {
        accepts: (id) => this.acceptsHere(id),
        run: (id, input, dims) => this.runHere(id, input, dims),
        // with a peer, its answer (its cue for the next run) gets in between this worker's runs
        pause: () => (this.peer ? yieldToMessages() : Promise.resolve()),
      },
    ],
    { isFatal: (error) => error instanceof PeerFailure },
  );

  private constructor(
    private readonly backend: OrtBackend,
    /** file name → URL (src/env.ts modelFileUrl) */
    private readonly locate: (file: string) => string,
    readonly manifest: ModelManifest,
    /** a download that receives no data for this long is ended (src/worker/download.ts) */
    private readonly downloadStallMs: number,
  ) {}

  static async open(backend: OrtBackend, locate: (file: string) => string, downloadStallMs: number): Promise<ModelRegistry> {
    const bytes = await downloadBytes(locate('manifest.json'), 'the model manifest', downloadStallMs);
    return new ModelRegistry(backend, locate, ModelManifestSchema.parse(JSON.parse(new TextDecoder().decode(bytes))), downloadStallMs);
  }

  /**
   * Shares model runs with a peer worker from now on (src/worker/model-peer.ts): runs queue and
   * whichever runtime is free takes the next; models loaded from now on are handed to it too.
   */
  attachPeer(peer: ModelPeer): void {
    this.peer = peer;
    // the models this worker already has: the peer fetches and loads its own copies
    for (const id of this.sessions.keys()) peer.load(id);
    peer.onChange = () => this.scheduler.wake();
    this.scheduler.addFirst(peer.lane);
  }

  /** a peer-first model this worker has not loaded waits for the peer (unless the peer has lost it) */
  private acceptsHere(id: string): boolean {
    return this.sessions.has(id) || !(PEER_FIRST_MODELS.has(id) && this.peer?.holds(id));
  }

  /**
   * Starts a model's load where it should happen first: in the peer for PEER_FIRST_MODELS when
   * there is one, here otherwise. Failures surface where the model is used.
   */
  prepare(id: string): void {
    if (this.peer && PEER_FIRST_MODELS.has(id) && !this.sessions.has(id)) this.peer.load(id);
    else this.load(id).catch(() => {});
  }

  /** peer-first models the peer holds and this worker has not loaded yet (loadDeferred's work) */
  get deferredLoadsPending(): boolean {
    return this.deferred().length > 0;
  }

  /** what loadDeferred() loads here, in order: peer-first models the peer holds, then parts of split models (SPLIT_PARTS) */
  private deferred(): string[] {
    const peerFirst = [...PEER_FIRST_MODELS].filter((id) => !this.sessions.has(id) && this.peer?.holds(id));
    const parts = this.peer ? [...SPLIT_PARTS].flatMap(([whole, ids]) => (this.readyHere.has(whole) ? ids : [])) : [];
    return [...peerFirst, ...parts.filter((id) => !this.sessions.has(id) && !this.partsTried.has(id) && this.has(id))];
  }

  /** For when this worker is idle: loads one deferred model here (and hands it to the peer), so both can run it. */
  async loadDeferred(): Promise<void> {
    const [id] = this.deferred();
    if (!id) return;
    if (PARTS.has(id)) this.partsTried.add(id);
    await this.load(id).then(() => this.scheduler.wake(), () => {});
  }

  /** whether the manifest lists a model */
  has(id: string): boolean {
    return this.manifest.models.some((m) => m.id === id);
  }

  /** whether a model's session here exists now (not still loading) */
  isReady(id: string): boolean {
    return this.readyHere.has(id);
  }

  /**
   * A model's session from bytes another worker already fetched and unpacked (a peer's models);
   * nothing is downloaded.
   */
  adopt(id: string, model: Uint8Array): Promise<LoadedModel> {
    let loaded = this.sessions.get(id);
    if (!loaded) {
      const entry = this.entry(id);
      const started = performance.now();
      loaded = this.backend.createSession(model, entry.sessionOptimization).then((session) => ({ entry, session, loadMs: performance.now() - started }));
      this.track(id, loaded);
    }
    return loaded;
  }

  /** how many runtimes take runs at once (2 with a peer): work split into that many runs finishes sooner */
  get runtimes(): number {
    return this.peer ? 2 : 1;
  }

  /** Model runs answered so far by this worker's ORT and by the peer's (diagnostics). */
  runCounts(): ModelRuns {
    return { here: this.localRuns, peer: this.peer ? this.scheduler.runs[0]! : 0, byModel: { ...this.runsByModel } };
  }

  entry(id: string): ModelEntry {
    const entry = this.manifest.models.find((m) => m.id === id);
    if (!entry) throw new Error(`unknown model "${id}"`);
    return entry;
  }

  load(id: string): Promise<LoadedModel> {
    let loaded = this.sessions.get(id);
    if (!loaded) {
      loaded = this.createSession(this.entry(id));
      this.track(id, loaded);
    }
    return loaded;
  }

  /** Keeps a model's load; a failed one is forgotten (it may be retried). */
  private track(id: string, loaded: Promise<LoadedModel>): void {
    this.sessions.set(id, loaded);
    loaded.then(
      () => this.sessions.get(id) === loaded && this.readyHere.add(id),
      () => this.sessions.delete(id),
    );
  }

  private async createSession(entry: ModelEntry): Promise<LoadedModel> {
    const started = performance.now();
    const stored = await downloadBytes(this.locate(entry.file), `model ${entry.id}`, this.downloadStallMs);
    // float32 weights for ORT, unpacked here rather than folded by ORT at its baseline tier
    const { model } = unpackStoredWeights(stored);
    // the peer builds its session from a copy while this one builds its own
    this.peer?.adopt(entry.id, model);
    const session = await this.backend.createSession(model, entry.sessionOptimization);
    if (entry.codeCacheWarmUp) this.codeCacheWarmUps.set(entry.id, model);
    const loadMs = performance.now() - started;
    this.loadLog.push({ id: entry.id, loadMs });
    return { entry, session, loadMs };
  }

  /** Every model loaded so far, in the order the loads finished. */
  loads(): ModelLoad[] {
    return this.loadLog.map((l) => ({ ...l }));
  }

  /**
   * Loads a model and runs it once on a blank input, so the first real request pays neither
   * (a first run costs 2–20× a warm one: docs/models.md). Times are what the warm-up itself
   * spent: 0 for a load or run that had already happened.
   */
  async warmUp(id: string): Promise<ModelWarmUp> {
    if (this.warmed.has(id)) return { id, loadMs: 0, firstRunMs: 0 };
    const loadedBefore = this.sessions.has(id);
    const { entry, loadMs } = await this.load(id);
    const dims = entry.input.shape.map((d) => (typeof d === 'number' ? d : 1));
    const started = performance.now();
    await this.run(id, new Float32Array(dims.reduce((a, b) => a * b, 1)), dims);
    return { id, loadMs: loadedBefore ? 0 : loadMs, firstRunMs: performance.now() - started };
  }

  /**
   * Runs a single-input model; returns every output as a plain Float32Array. With a peer the run
   * queues for whichever runtime is free first (start several runs together for both to work);
   * `ahead`: before the runs waiting (RunScheduler.submit).
   */
  run(id: string, input: Float32Array, dims: readonly number[], ahead = false): Promise<Record<string, NamedOutput>> {
    this.runsByModel[id] = (this.runsByModel[id] ?? 0) + 1;
    return this.scheduler.submit(id, input as Float32Array<ArrayBuffer>, dims, ahead);
  }

  /**
   * Runs a model in this worker's ORT. A run whose backend fell back from WebGPU to WASM meanwhile
   * (src/worker/ort-backend.ts) is repeated once on a session made anew.
   */
  private async runHere(id: string, input: Float32Array, dims: readonly number[]): Promise<Record<string, NamedOutput>> {
    try {
      return await this.runOnce(id, input, dims);
    } catch (error) {
      if (!(error instanceof BackendChanged)) throw error;
      await this.forgetStale(id);
      return this.runOnce(id, input, dims);
    }
  }

  /** Drops a model's session if it was made before the backend changed (a fresh one is made at next use). */
  private async forgetStale(id: string): Promise<void> {
    const loaded = this.sessions.get(id);
    const session = await loaded?.then((l) => l.session, () => undefined);
    if (session && !this.backend.owns(session) && this.sessions.get(id) === loaded) {
      this.sessions.delete(id);
      this.readyHere.delete(id);
    }
  }

  private async runOnce(id: string, input: Float32Array, dims: readonly number[]): Promise<Record<string, NamedOutput>> {
    const { entry, session } = await this.load(id);
    this.warmed.add(id);
    this.localRuns++;
    const results = await this.backend.run(session, { [entry.input.name]: this.backend.tensor(input, dims) });
    const out: Record<string, NamedOutput> = {};
    for (const [name, tensor] of Object.entries(results)) {
      out[name] = { data: tensor.data as Float32Array, dims: [...tensor.dims] };
      tensor.dispose();
    }
    return out;
  }

  /**
   * Runs a single-input model on an input that `fill` writes into a buffer lent for this run
   * (src/worker/input-buffers.ts); for inputs nothing reads after the run.
   */
  async runFilled(id: string, dims: readonly number[], fill: (input: Float32Array<ArrayBuffer>) => void, ahead = false): Promise<Record<string, NamedOutput>> {
    const input = this.inputs.take(dims.reduce((a, b) => a * b, 1));
    try {
      fill(input);
      return await this.run(id, input, dims, ahead);
    } finally {
      this.inputs.give(input);
    }
  }

  /** whether warmCodeCache() has anything left to do (so callers schedule it only then) */
  get codeCacheWarmUpPending(): boolean {
    return this.codeCacheWarmUps.size > 0;
  }

  /**
   * For each model that has run and asks for it (manifest `codeCacheWarmUp`), once: creates and
   * releases CODE_CACHE_SESSIONS throwaway sessions at level 'all'. For when the worker has
   * nothing else to do (a creation is one synchronous call into ORT); the sessions in use are
   * untouched, and a failure only means the cache may not be written.
   */
  async warmCodeCache(): Promise<void> {
    for (const [id, model] of this.codeCacheWarmUps) {
      if (!this.warmed.has(id)) continue;
      this.codeCacheWarmUps.delete(id);
      try {
        for (let i = 0; i < CODE_CACHE_SESSIONS; i++) await this.backend.release(await this.backend.createSession(model, 'all'));
      } catch {
        // nothing depends on it
      }
    }
  }
}
