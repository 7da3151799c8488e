// One library of the side-by-side bench in its own page (see peer-adapter.ts for why).
//   ?peer=human|faceapi|engine&threads=N[&tfjs=native][&engine=lib|src][&lib=DIR]   (see PeerOptions)
//   (no mode)               embedded in peers.html: exposes window.__peer to the parent frame
//   &mode=cold&photo=ID     a cold start: the library starts as this module runs and, in
//                           parallel, the photo is made; Node collects the first result with
//                           the harness call coldStart()
import { PEERS, type Peer } from '../peers-data.ts';
import { expose } from '../../harness/page.ts';
import type { PeerAdapter, PeerOptions, PeerRuntime, StartPeer } from './peer-adapter.ts';
import { benchPhoto } from './peer-photos.ts';

/** when this module started running: the page's scripts have been fetched and evaluated */
const moduleStart = performance.now();

const LOADERS: Record<Peer, () => Promise<{ start: StartPeer }>> = {
  human: () => import('./peer-human.ts'),
  faceapi: () => import('./peer-faceapi.ts'),
  engine: () => import('./peer-engine.ts'),
};

const params = new URLSearchParams(location.search);
const peer = params.get('peer') as Peer;
if (!PEERS.includes(peer)) throw new Error(`?peer= must be one of ${PEERS.join(', ')}`);
const options: PeerOptions = {
  threads: Number(params.get('threads') ?? '2'),
  tfjsNativeThreads: params.get('tfjs') === 'native',
  engineBuild: params.get('engine') === 'src' ? 'src' : 'lib',
  engineLibDir: params.get('lib') ?? undefined,
};

let readyAt = Number.NaN;
const starting: Promise<PeerAdapter> = LOADERS[peer]()
  .then((m) => m.start(options))
  .then((adapter) => {
    readyAt = performance.now();
    return adapter;
  });
starting.catch(() => {}); // observed by whoever awaits it

export interface PeerFrameApi {
  /** resolves once the library has started (models loaded where the library loads them up front) */
  ready: Promise<{ startMs: number; crossOriginIsolated: boolean }>;
  /** hands the frame the encoded photos (bytes from the parent; Blobs are made in this realm) */
  load(photos: { id: string; bytes: ArrayBuffer; type: string }[]): void;
  /** one analysis of a loaded photo, timed here, with the part of it that was decoding */
  run(id: string): Promise<{ ms: number; decodeMs: number; faces: number }>;
  runtime(): Promise<PeerRuntime>;
  close(): void;
}

declare global {
  // eslint-disable-next-line no-var
  var __peer: PeerFrameApi | undefined;
}

export interface PeerCold {
  peer: Peer;
  photo: string;
  /** ms since navigation start */
  moduleStart: number;
  /** the library started (start() resolved) */
  ready: number;
  photoReady: number;
  /** the first answer on the photo */
  firstResult: number;
  faces: number;
  runtime: PeerRuntime;
  crossOriginIsolated: boolean;
}

if (params.get('mode') === 'cold') {
  const photoId = params.get('photo') ?? '';
  let photoReady = Number.NaN;
  const photoMade = benchPhoto(photoId).then((photo) => {
    photoReady = performance.now();
    return photo;
  });
  const cold = (async (): Promise<PeerCold> => {
    const [adapter, photo] = await Promise.all([starting, photoMade]);
    const { faces } = await adapter.detect(photo);
    const firstResult = performance.now();
    return { peer, photo: photoId, moduleStart, ready: readyAt, photoReady, firstResult, faces, runtime: await adapter.runtime(), crossOriginIsolated };
  })();
  cold.catch(() => {});
  expose({ coldStart: () => cold });
} else {
  const photos = new Map<string, Blob>();
  globalThis.__peer = {
    ready: starting.then(() => ({ startMs: readyAt - moduleStart, crossOriginIsolated })),
    load(list) {
      for (const p of list) photos.set(p.id, new Blob([p.bytes], { type: p.type }));
    },
    async run(id) {
      const adapter = await starting;
      const photo = photos.get(id);
      if (!photo) throw new Error(`${peer}: photo ${id} was not loaded`);
      const t = performance.now();
      const { faces, decodeMs } = await adapter.detect(photo);
      return { ms: performance.now() - t, decodeMs, faces };
    },
    runtime: async () => (await starting).runtime(),
    close: () => void starting.then((a) => a.close(), () => {}),
  };
}
