// A second vision worker that only runs models, for the second core: where ORT cannot run threads
// (no SharedArrayBuffer: a page without COOP/COEP, WebKit) one worker's ORT uses one core however
// many the device has. The peer is this same worker script, started from inside the worker, so
// every build (vite, webpack, the package) already ships it. It starts after the worker's first
// answer (vision.worker.ts afterAnswer), loads the models the worker already has itself (from the
// HTTP cache), gets later ones' unpacked bytes from the worker, and runs what the RunScheduler
// hands it.
import * as Comlink from 'comlink';
import type { RuntimeEnv } from '../env.ts';
import type { NamedOutput } from './model-registry.ts';
import type { RunLane } from './run-scheduler.ts';
import { brokenReason } from './worker-broken.ts';

/** What the peer answers (a subset of the vision worker's API: src/worker/vision.worker.ts). */
export interface PeerApi {
  init(env: RuntimeEnv, role: 'peer'): Promise<unknown>;
  loadModel(id: string): Promise<number>;
  adoptModel(id: string, model: Uint8Array): Promise<number>;
  runModel(id: string, input: Float32Array, dims: number[]): Promise<Record<string, NamedOutput>>;
}

export type Outputs = Record<string, NamedOutput>;

/** A peer run that has not answered in this long is taken as a dead peer (its run is redone here). */
const PEER_RUN_TIMEOUT_MS = 30_000;

export class PeerFailure extends Error {}

export interface ModelPeer {
  lane: RunLane<Outputs>;
  /** Hands the peer a model's unpacked bytes (a copy); it takes that model's runs once its session exists. */
  adopt(id: string, model: Uint8Array): void;
  /** Has the peer fetch and load a model itself (one this worker has not loaded). */
  load(id: string): void;
  /** whether the peer is alive and has the model or is getting it (its runs can wait for the peer) */
  holds(id: string): boolean;
  /** called when the peer takes a new model or dies: runs waiting for either can go */
  onChange?: () => void;
  /** settles when the peer's start has (its init answered, or it failed) */
  started: Promise<unknown>;
  terminate(): void;
}

/**
 * Whether a second model worker pays: ORT runs one thread here and the device has another core.
 * `modelWorkers` (createEngine option) overrides: 1 never, 2 always.
 */
export function wantsPeer(env: Pick<RuntimeEnv, 'modelWorkers'>, ortThreads: number, cores = globalThis.navigator?.hardwareConcurrency ?? 1): boolean {
  if (env.modelWorkers !== undefined) return env.modelWorkers >= 2;
  return ortThreads === 1 && cores >= 2;
}

/** Starts the peer (undefined where a worker cannot start a worker). */
export function startModelPeer(env: RuntimeEnv, scriptUrl = globalThis.location?.href): ModelPeer | undefined {
  let worker: Worker;
  try {
    if (typeof Worker === 'undefined' || !scriptUrl) return undefined;
    worker = new Worker(scriptUrl, { type: 'module', name: 'vision-peer' });
  } catch {
    return undefined;
  }
  const remote = Comlink.wrap<PeerApi>(worker);
  let failed: PeerFailure | undefined;
  let rejectDeath!: (error: PeerFailure) => void;
  const died = new Promise<never>((_, reject) => (rejectDeath = reject));
  died.catch(() => {});
  const fail = (why: string) => {
    if (failed) return;
    failed = new PeerFailure(`model peer ${why}`);
    rejectDeath(failed);
    worker.terminate();
  };
  worker.addEventListener('error', () => fail('failed'));
  worker.addEventListener('message', (event) => {
    const reason = brokenReason(event.data);
    if (reason !== undefined) fail(reason);
  });
  const started = Promise.race([remote.init({ ...env, modelWorkers: 1, numThreads: 1 }, 'peer'), died]);
  started.catch(() => fail('did not start'));
  const ready = new Set<string>();
  const offered = new Set<string>();

  /** a peer call raced against its death and a bound (either ends the peer and fails the call with PeerFailure) */
  const within = async <T>(call: Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new PeerFailure('did not answer')), PEER_RUN_TIMEOUT_MS)));
    try {
      return await Promise.race([call, died, bound]);
    } catch (error) {
      // the model's own error (comlink passes it on) is the caller's; only a death or no answer ends the peer
      if (!(error instanceof PeerFailure)) throw error;
      fail(error.message.replace(/^model peer /, ''));
      throw failed!;
    } finally {
      clearTimeout(timer);
    }
  };

  const peer: ModelPeer = {
    lane: {
      accepts: (id) => !failed && ready.has(id),
      run: (id, input, dims) => {
        // a copy of its own: the caller's buffer is lent (input-buffers.ts) and may be part of a larger one
        const own = input.slice();
        return within(remote.runModel(id, Comlink.transfer(own, [own.buffer]), [...dims]));
      },
    },
    adopt: (id, model) => take(id, () => remote.adoptModel(id, model)),
    load: (id) => take(id, () => remote.loadModel(id)),
    holds: (id) => !failed && offered.has(id),
    started: started.catch(() => undefined),
    terminate: () => fail('terminated'),
  };
  /** the peer's session of a model, made once; a failed one is forgotten so this worker runs the model */
  function take(id: string, create: () => Promise<unknown>): void {
    if (failed || offered.has(id)) return;
    offered.add(id);
    started
      .then(() => within(create()))
      .then(
        () => ready.add(id),
        () => offered.delete(id),
      )
      .finally(() => peer.onChange?.());
  }
  died.catch(() => peer.onChange?.());
  return peer;
}
