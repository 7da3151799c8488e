// Runs in the side-by-side bench page; driven step by step from Node by tools/bench/peers.ts:
// setup() opens one iframe per library (peer-frame.html) and hands each the same encoded
// photos; warmUp() and pass() then send every photo to the three in turn, rotating who goes
// first, and return each call's time and face count as the frame measured it.
import { expose } from '../../harness/page.ts';
import { PEERS, peerOrder, type Peer } from '../peers-data.ts';
import type { EngineBuild, PeerRuntime } from './peer-adapter.ts';
import type { PeerFrameApi } from './peer-frame.ts';
import { benchPhoto, knownPhoto } from './peer-photos.ts';

const FRAME_START_TIMEOUT_MS = 180_000;

const frames = new Map<Peer, { element: HTMLIFrameElement; api: PeerFrameApi }>();

function api(peer: Peer): PeerFrameApi {
  const frame = frames.get(peer);
  if (!frame) throw new Error(`no frame for ${peer}: call setup() first`);
  return frame.api;
}

async function openFrame(peer: Peer, query: string): Promise<{ element: HTMLIFrameElement; api: PeerFrameApi }> {
  const element = document.createElement('iframe');
  element.src = `./peer-frame.html?peer=${peer}&${query}`;
  element.width = '320';
  element.height = '240';
  document.body.append(element);
  const until = performance.now() + FRAME_START_TIMEOUT_MS;
  for (;;) {
    const frameApi = (element.contentWindow as (Window & typeof globalThis) | null)?.__peer;
    if (frameApi) return { element, api: frameApi };
    if (performance.now() > until) throw new Error(`${peer}: the frame did not start in ${FRAME_START_TIMEOUT_MS} ms (see its console)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface SetupResult {
  frames: Record<Peer, { startMs: number; crossOriginIsolated: boolean }>;
  photos: { id: string; bytes: number; type: string }[];
  hardwareConcurrency: number;
  userAgent: string;
  crossOriginIsolated: boolean;
}

/** Opens the frames one after another (each starts alone) and loads the photos into each. */
async function setup(options: { ids: string[]; threads: number; tfjsNativeThreads: boolean; engineBuild: EngineBuild; engineLibDir?: string }): Promise<SetupResult> {
  const missing = options.ids.filter((id) => !knownPhoto(id));
  if (missing.length) throw new Error(`the page cannot serve ${missing.join(', ')}`);
  const photos: { id: string; bytes: ArrayBuffer; type: string }[] = [];
  for (const id of options.ids) {
    const blob = await benchPhoto(id);
    photos.push({ id, bytes: await blob.arrayBuffer(), type: blob.type });
  }
  const started = {} as SetupResult['frames'];
  for (const peer of PEERS) {
    console.log(`bench: starting ${peer}`);
    const frame = await openFrame(peer, `threads=${options.threads}${options.tfjsNativeThreads ? '&tfjs=native' : ''}&engine=${options.engineBuild}${options.engineLibDir ? `&lib=${options.engineLibDir}` : ''}`);
    frames.set(peer, frame);
    started[peer] = await frame.api.ready;
    frame.api.load(photos);
  }
  return {
    frames: started,
    photos: photos.map((p) => ({ id: p.id, bytes: p.bytes.byteLength, type: p.type })),
    hardwareConcurrency: navigator.hardwareConcurrency,
    userAgent: navigator.userAgent,
    crossOriginIsolated,
  };
}

export interface Call {
  peer: Peer;
  id: string;
  ms: number;
  /** of `ms`, decoding the photo (see Detected in peer-adapter.ts; NaN where not measured) */
  decodeMs: number;
  faces: number;
}

/**
 * Every id to the three libraries in turn; `turn0` offsets the rotation (the pass number). With
 * `settleMs`, each call comes after that much idle, as a user's photo comes after a pause: the
 * previous call's trailing work is then off the next call's clock, and a slow-down idle brings is on it.
 */
async function round(ids: string[], turn0: number, settleMs = 0): Promise<Call[]> {
  const calls: Call[] = [];
  for (const [i, id] of ids.entries()) {
    for (const peer of peerOrder(turn0 + i)) {
      if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
      const { ms, decodeMs, faces } = await api(peer).run(id);
      calls.push({ peer, id, ms, decodeMs, faces });
    }
  }
  return calls;
}

/** Untimed rounds over `ids`, repeated until `rounds` are done and `minMs` has passed. */
async function warmUp(options: { ids: string[]; rounds: number; minMs: number }): Promise<Call[]> {
  const until = performance.now() + options.minMs;
  const calls: Call[] = [];
  for (let r = 0; r < options.rounds || performance.now() < until; r++) calls.push(...(await round(options.ids, r)));
  return calls;
}

/** One measured pass over `ids` (the caller repeats ids it wants measured more often). */
const pass = (options: { ids: string[]; index: number; settleMs?: number }): Promise<Call[]> => round(options.ids, options.index, options.settleMs);

async function finish(): Promise<Record<Peer, PeerRuntime>> {
  const runtimes = {} as Record<Peer, PeerRuntime>;
  for (const peer of PEERS) runtimes[peer] = await api(peer).runtime();
  for (const { element, api: frameApi } of frames.values()) {
    frameApi.close();
    element.remove();
  }
  frames.clear();
  return runtimes;
}

expose({ setup, warmUp, pass, finish });
