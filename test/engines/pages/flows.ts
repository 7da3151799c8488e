// Page side of the cross-browser tests (test/engines/flows.ts): the engine as an app uses it,
// in whichever browser opened this page. Node hands in the photos and clip (putFile: bytes as
// base64, the one thing every driver can send) and calls these functions one step at a time;
// each returns plain data that Node asserts on. No assertions here: a step reports what happened.
import { createEngine, installShims, type Engine } from '../../../src/index.ts';
import type { DecodedImageInput, DecodedKind } from '../../../src/intake/decoded-input.ts';
import { decodedFrom } from '../../../tools/harness/decoded-images.ts';
import { expose } from '../../../tools/harness/page.ts';

const files = new Map<string, File>();
let engine: Engine | undefined;

const need = (): Engine => {
  if (!engine) throw new Error('no engine: start() failed or was not called');
  return engine;
};
const file = (name: string): File => {
  const f = files.get(name);
  if (!f) throw new Error(`no file ${name}: putFile() it first`);
  return f;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function putFile(name: string, base64: string, type: string): number {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  files.set(name, new File([bytes], name, { type }));
  return bytes.length;
}

async function start(options: { storageName: string }) {
  const t = performance.now();
  engine = await createEngine({ storageName: options.storageName });
  return {
    createEngineMs: performance.now() - t,
    backend: engine.backend,
    platform: await engine.diagnostics.platform(),
    userAgent: navigator.userAgent,
  };
}

/** An engine call timed in the page. */
async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; answer: T }> {
  const t = performance.now();
  const answer = await run();
  return { ms: performance.now() - t, answer };
}

const detect = (name: string) => timed(() => need().detect({ image: file(name) }));

/**
 * Model runs answered by the vision worker and by its model peer: where there is a peer, after
 * detects of `name` until it has taken a run (it starts after the first answer), at most `ms`.
 */
async function modelRuns(name: string, ms: number) {
  const e = need();
  const until = performance.now() + ms;
  const wantsPeer = (await e.diagnostics.platform()).modelWorkers === 2;
  while (wantsPeer && (await e.diagnostics.modelRuns()).peer === 0 && performance.now() < until) await e.detect({ image: file(name) });
  return e.diagnostics.modelRuns();
}

/** /detect with the engine's per-stage timings (diagnostics.onTimings): where a browser's time goes. */
async function detectStages(name: string) {
  const e = need();
  let stages: Record<string, number> | undefined;
  const unsubscribe = e.diagnostics.onTimings((event) => void (stages = { ...event.timings }));
  try {
    const { ms, answer } = await timed(() => e.detect({ image: file(name), selector: 'LIVENESS' }));
    return { ms, faces: 'images' in answer ? answer.images[0]!.faces.length : 0, stages };
  } finally {
    unsubscribe();
  }
}
const enroll = (name: string, subject_id: string, gallery_name: string) => timed(() => need().enroll({ image: file(name), subject_id, gallery_name }));
const verify = (name: string, subject_id: string, gallery_name: string) => timed(() => need().verify({ image: file(name), subject_id, gallery_name }));
const recognize = (name: string, gallery_name: string) => timed(() => need().recognize({ image: file(name), gallery_name }));

async function galleries(gallery_name: string, subject_id: string) {
  const e = need();
  return {
    listAll: await e.galleryListAll(),
    view: await e.galleryView({ gallery_name }),
    viewSubject: await e.galleryViewSubject({ gallery_name, subject_id }),
    templates: await e.subjectTemplates({ gallery_name, subject_id }),
  };
}

/** The stored photo of a subject's first template, as its size and type (the Blob itself does not cross). */
async function storedPhoto(gallery_name: string, subject_id: string) {
  const e = need();
  const templates = await e.subjectTemplates({ gallery_name, subject_id });
  if (!Array.isArray(templates) || !templates[0]) return { templates };
  const image = await e.templateImage({ gallery_name, subject_id, face_id: templates[0].face_id });
  if (!image || 'Errors' in image) return { image };
  const bitmap = await createImageBitmap(image.image);
  const decoded = { width: bitmap.width, height: bitmap.height };
  bitmap.close();
  return { bytes: image.image.size, type: image.image.type, decoded, box: image.box };
}

const removeSubject = (gallery_name: string, subject_id: string) => need().galleryRemoveSubject({ gallery_name, subject_id });
const removeGallery = (gallery_name: string) => need().galleryRemove({ gallery_name });
const view = (gallery_name: string) => need().galleryView({ gallery_name });
const listAll = () => need().galleryListAll();

/** Export a gallery, then import that file's JSON text (what a user downloads and picks) under another name. */
async function exportImport(gallery_name: string, as: string) {
  const e = need();
  const exported = await e.exportGallery({ gallery_name, include_images: true });
  if ('Errors' in exported) return { exported };
  const text = JSON.stringify(exported);
  const imported = await e.importGallery({ file: new File([text], `${gallery_name}.json`, { type: 'application/json' }), gallery_name: as });
  return {
    exported: { gallery_name: exported.gallery_name, subjects: exported.subjects.map((s) => ({ subject_id: s.subject_id, templates: s.templates.length })), bytes: text.length },
    imported,
  };
}

/** Which of the clips this browser's <video> says it can play. */
function playable(types: Record<string, string>): Record<string, string> {
  const video = document.createElement('video');
  return Object.fromEntries(Object.entries(types).map(([name, type]) => [name, video.canPlayType(type)]));
}

/** POST /v2/media with a clip, then GET until it is no longer Processing (or `limitMs` passes). */
async function media(name: string, limitMs: number) {
  const e = need();
  const t = performance.now();
  const posted = await e.mediaPost({ source: file(name), timeout: 1 });
  const id = (posted as { id?: string }).id;
  if (!id) return { posted };
  let got: Record<string, unknown> = posted as Record<string, unknown>;
  while (got.status_code === 2 && performance.now() - t < limitMs) {
    await sleep(250);
    got = (await e.mediaGet({ id })) as Record<string, unknown>;
  }
  const frames = (got.frames as { people: unknown[] }[] | undefined) ?? [];
  const analytics = got.status_code === 4 ? await e.analyticsGet({ id }) : undefined;
  const deleted = await e.mediaDelete({ id });
  return {
    ms: performance.now() - t,
    status_code: got.status_code,
    status_message: got.status_message,
    media_info: got.media_info,
    length: got.length,
    frames: frames.length,
    framesWithPeople: frames.filter((f) => f.people.length > 0).length,
    impressions: (analytics as { impressions?: unknown[] } | undefined)?.impressions?.length,
    deleted,
  };
}

/**
 * engine.watch() on a clip playing in a <video> (the path every browser takes), then, where the
 * browser has WebCodecs' VideoFrame, on VideoFrames taken from it (Chromium's camera path: the
 * worker reads I420/NV12 planes itself). Each until `results` results or `limitMs`.
 */
async function watchClip(name: string, results: number, limitMs: number) {
  const e = need();
  const video = document.createElement('video');
  video.muted = true;
  video.loop = true;
  video.playsInline = true;
  const url = URL.createObjectURL(file(name));
  video.src = url;
  const run = async (source: Parameters<Engine['watch']>[0], options: Parameters<Engine['watch']>[1]) => {
    const t = performance.now();
    const live = e.watch(source, options);
    let count = 0;
    let withFace = 0;
    const tracks = new Set<string>();
    const stop = setTimeout(() => void live.stop(), limitMs);
    try {
      for await (const frame of live) {
        count++;
        if (frame.faces.length > 0) withFace++;
        for (const f of frame.faces) tracks.add(f.track_id);
        if (count >= results) break;
      }
    } finally {
      clearTimeout(stop);
      await live.stop();
    }
    return { results: count, withFace, tracks: tracks.size, ms: performance.now() - t };
  };
  try {
    await video.play();
    const element = await run(video, { analyses: 'boxes' });
    let videoFrames: (Awaited<ReturnType<typeof run>> & { format: string | null }) | undefined;
    if (typeof VideoFrame !== 'undefined') {
      let format: string | null = null;
      async function* frames(): AsyncGenerator<VideoFrame> {
        for (let k = 0; k < results * 4; k++) {
          await sleep(50);
          const frame = new VideoFrame(video, { timestamp: Math.round(video.currentTime * 1e6) + k });
          format = frame.format;
          yield frame;
        }
      }
      videoFrames = { ...(await run(frames(), { analyses: 'boxes', dropFrames: false })), format };
    }
    return { element, videoFrames };
  } finally {
    video.pause();
    video.removeAttribute('src');
    video.load();
    URL.revokeObjectURL(url);
  }
}

const base64Of = async (blob: Blob) => {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};

/** The fetch and XMLHttpRequest shims: Kairos requests to api.kairos.com answered in the page. */
async function shims(detectName: string, recognizeName: string, gallery_name: string) {
  const e = need();
  const shim = installShims(e);
  const headers = { 'Content-Type': 'application/json', app_id: 'demo', app_key: 'demo' };
  try {
    const viaFetch = await fetch('https://api.kairos.com/recognize', {
      method: 'POST',
      headers,
      body: JSON.stringify({ image: await base64Of(file(recognizeName)), gallery_name }),
    });
    const fetched = { status: viaFetch.status, contentType: viaFetch.headers.get('content-type'), body: await viaFetch.json() };
    const detectBody = JSON.stringify({ image: await base64Of(file(detectName)) });
    const xhr = await new Promise<{ status: number; contentType: string | null; body: unknown }>((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', 'https://api.kairos.com/detect');
      for (const [k, v] of Object.entries(headers)) request.setRequestHeader(k, v);
      request.onload = () => resolve({ status: request.status, contentType: request.getResponseHeader('content-type'), body: JSON.parse(request.responseText) });
      request.onerror = () => reject(new Error('XMLHttpRequest failed'));
      request.send(detectBody);
    });
    const unauthorised = await fetch('https://api.kairos.com/gallery/list_all', { method: 'POST', headers: { app_id: 'demo', app_key: 'wrong' } });
    // multipart uploads, as the demo and form-posting clients send a File (WebKit cannot read such a body back from a Request)
    const form = new FormData();
    form.append('image', file(recognizeName), recognizeName);
    form.append('gallery_name', gallery_name);
    const auth = { app_id: 'demo', app_key: 'demo' };
    const multipartFetch = await fetch('https://api.kairos.com/recognize', { method: 'POST', headers: auth, body: form });
    const multipartXhr = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', 'https://api.kairos.com/detect');
      for (const [k, v] of Object.entries(auth)) request.setRequestHeader(k, v);
      request.onload = () => resolve({ status: request.status, body: JSON.parse(request.responseText) });
      request.onerror = () => reject(new Error('XMLHttpRequest failed'));
      const detectForm = new FormData();
      detectForm.append('image', file(detectName), detectName);
      request.send(detectForm);
    });
    return {
      fetched,
      xhr,
      unauthorised: { status: unauthorised.status, body: await unauthorised.json() },
      multipartFetch: { status: multipartFetch.status, body: await multipartFetch.json() },
      multipartXhr,
    };
  } finally {
    shim.uninstall();
  }
}

/**
 * An IndexedDB that fails the engine's writes: while patched, every put() and add() either throws
 * an UnknownError DOMException (how WebKit refuses a Blob it cannot store) or — 'abort' — starts
 * the request and then aborts its transaction (the failure arrives asynchronously, as events).
 * Enrolls with store_image on and reports what came back within `boundMs`, unpatching after.
 */
async function enrollWithFailingStore(name: string, subject_id: string, gallery_name: string, how: 'throw' | 'abort', boundMs: number) {
  const e = need();
  const proto = IDBObjectStore.prototype;
  const original = { put: proto.put, add: proto.add };
  let failedWrites = 0;
  const failing = (method: 'put' | 'add') =>
    function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>): IDBRequest<IDBValidKey> {
      failedWrites++;
      if (how === 'throw') throw new DOMException('Error preparing Blob/File data to be stored in object store (injected by the test)', 'UnknownError');
      const request = original[method].apply(this, args);
      const tx = this.transaction;
      queueMicrotask(() => {
        try {
          tx.abort();
        } catch {
          // already finished: nothing to abort
        }
      });
      return request;
    };
  proto.put = failing('put');
  proto.add = failing('add');
  const t = performance.now();
  try {
    const outcome = await Promise.race([
      e.enroll({ image: file(name), subject_id, gallery_name }, { storeImage: true }).then((answer) => ({ settled: true as const, answer })),
      sleep(boundMs).then(() => ({ settled: false as const })),
    ]);
    return { ...outcome, ms: performance.now() - t, failedWrites };
  } finally {
    proto.put = original.put;
    proto.add = original.add;
  }
}

/** A /detect answer as the few numbers the flows compare (or the error). */
function detectSummary(answer: Awaited<ReturnType<Engine['detect']>>) {
  if ('Errors' in answer) return { error: answer.Errors[0] };
  const image = answer.images[0]!;
  return {
    width: image.width,
    height: image.height,
    faces: image.faces.map((f) => ({ box: [f.topLeftX, f.topLeftY, f.width, f.height], eyes: [f.leftEyeCenterX, f.leftEyeCenterY, f.rightEyeCenterX, f.rightEyeCenterY], gender: f.attributes.gender.type })),
  };
}

/**
 * The typed API with decoded pictures, as pages using human or face-api hold them: an
 * ImageBitmap, a <canvas>, ImageData, an <img> and (where the browser has WebCodecs) a
 * VideoFrame made from `name`, each through detect next to the file itself; then verify with the
 * ImageBitmap of `verifyName` against a subject enrolled earlier.
 */
async function decodedInputs(name: string, verifyName: string, subject_id: string, gallery_name: string) {
  const e = need();
  const names: DecodedKind[] = ['ImageBitmap', 'HTMLCanvasElement', 'ImageData', 'HTMLImageElement'];
  if (typeof VideoFrame !== 'undefined') names.push('VideoFrame');
  const kinds = new Map<DecodedKind, DecodedImageInput>();
  for (const kind of names) kinds.set(kind, await decodedFrom(file(name), kind));
  try {
    const fromFile = detectSummary(await e.detect({ image: file(name) }));
    const decoded: Record<string, unknown> = {};
    for (const [kind, image] of kinds) decoded[kind] = detectSummary(await e.detect({ image }));
    const verifyBitmap = await createImageBitmap(file(verifyName));
    const verified = await e.verify({ image: verifyBitmap, subject_id, gallery_name });
    verifyBitmap.close();
    return { file: fromFile, decoded, bitmapStillOpen: (kinds.get('ImageBitmap') as ImageBitmap).width > 0, verified };
  } finally {
    (kinds.get('VideoFrame') as VideoFrame | undefined)?.close();
    (kinds.get('ImageBitmap') as ImageBitmap).close();
  }
}

/** An <img> of an EXIF-rotated JPEG (already shown upright) against the file: the engine must not turn it again. */
async function decodedExif(name: string) {
  const e = need();
  const img = (await decodedFrom(file(name), 'HTMLImageElement')) as HTMLImageElement;
  return { natural: [img.naturalWidth, img.naturalHeight], file: detectSummary(await e.detect({ image: file(name) })), img: detectSummary(await e.detect({ image: img })) };
}

function stop() {
  engine?.close();
  engine = undefined;
}

expose({ putFile, start, detect, modelRuns, detectStages, enroll, verify, recognize, galleries, storedPhoto, removeSubject, removeGallery, view, listAll, exportImport, playable, media, watchClip, shims, enrollWithFailingStore, decodedInputs, decodedExif, stop });
