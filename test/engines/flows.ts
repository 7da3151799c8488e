// The flows every browser must pass (issue 30), as one vitest suite per browser: each test file
// (chromium / firefox / webkit .test.ts) calls engineFlows(name). One browser and one engine per
// file, shared by the steps in order (the engine starts once; later steps use what earlier ones
// enrolled), on the production build served by global-setup.ts with COOP/COEP. Every step is
// bounded (tools/harness/browsers.ts evaluate timeouts, shorter than the test's own), so a hang
// fails that step with its name instead of stalling the suite.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, type BrowserName, type DrivenBrowser } from '../../tools/harness/browsers.ts';
import { demoFlows } from './demo-flows.ts';
import { base64File, CLIPS, pageCall, PHOTOS, typeOf, waitInPage, type Json } from './page-calls.ts';
import { DATA_DIR, FLOWS_PAGE, REPORT_DIR } from './paths.ts';

/** How much slower than Chromium a step may be: WebKit runs ORT on one thread (no SharedArrayBuffer). */
export const SLOWNESS: Record<BrowserName, number> = { chromium: 1, firefox: 1.5, webkit: 4 };
/** The bound within which an IndexedDB failure must come back as an error body (issue 30). */
export const STORE_FAILURE_BOUND_MS = 15_000;

/** Decoded inputs against the file: same size and faces, boxes and eyes within this many px (Chromium: ≤ 1). */
const DECODED_PX = 3;

function expectSameDetect(got: Json, want: Json, what: string): void {
  expect(got.error, `${what}: ${JSON.stringify(got.error)}`).toBeUndefined();
  expect([got.width, got.height], what).toEqual([want.width, want.height]);
  expect(got.faces.length, what).toBe(want.faces.length);
  want.faces.forEach((w: Json, i: number) => {
    const g = got.faces[i];
    [...w.box, ...w.eyes].forEach((v: number, k: number) => expect(Math.abs([...g.box, ...g.eyes][k] - v), `${what} face ${i}: ${JSON.stringify(g)} vs ${JSON.stringify(w)}`).toBeLessThanOrEqual(DECODED_PX));
    expect(g.gender, what).toBe(w.gender);
  });
}

export function engineFlows(name: BrowserName): void {
  const slow = SLOWNESS[name];
  /** a step's bound (ms) in this browser; the test's own timeout is a little longer so the step's message wins */
  const limit = (chromiumMs: number) => Math.round(chromiumMs * slow);
  const step = (chromiumMs: number) => limit(chromiumMs) + 10_000;
  const report: Record<string, unknown> = { browser: name };
  const stepMs: Record<string, number> = {};
  let browser: DrivenBrowser;
  const call = async (fn: string, args: unknown[], chromiumMs: number) => {
    const t = Date.now();
    try {
      return await pageCall(browser, fn, args, limit(chromiumMs));
    } finally {
      stepMs[fn] = (stepMs[fn] ?? 0) + Date.now() - t;
    }
  };
  const storageName = `engines-${name}-${Date.now()}`;

  describe(`${name}: the engine's flows`, () => {
    beforeAll(async () => {
      browser = await launchBrowser(name, { timeoutMs: limit(60_000) });
      report.version = browser.version;
      await browser.open(new URL(FLOWS_PAGE, inject('enginesBaseUrl')).href);
      await waitInPage(browser, 'globalThis.__harness', limit(30_000), 'the flows page to load');
      for (const [file, path] of Object.entries(PHOTOS)) await pageCall(browser, 'putFile', [file, base64File(path), typeOf(path)], 30_000);
    }, step(150_000));

    afterAll(async () => {
      await browser?.close();
      mkdirSync(REPORT_DIR, { recursive: true });
      writeFileSync(resolve(REPORT_DIR, `${name}.json`), JSON.stringify({ ...report, stepMs }, null, 1));
      console.log(`[engines] ${name}: ${JSON.stringify({ ...report, stepMs })}`);
    });

    it('createEngine starts and says which path it took (threads or one, WebGPU, ImageDecoder, OffscreenCanvas, storage estimate)', async () => {
      const started = await call('start', [{ storageName }], 60_000);
      report.backend = started.backend;
      report.platform = started.platform;
      report.createEngineMs = Math.round(started.createEngineMs);
      const { platform, backend } = started;
      expect(platform.crossOriginIsolated).toBe(true);
      // the path follows the feature: threads exactly where SharedArrayBuffer exists
      expect(platform.compute).toBe(backend.backend === 'webgpu' ? 'webgpu' : platform.sharedArrayBuffer ? 'threads' : 'one thread');
      expect(backend.threads).toBe(platform.sharedArrayBuffer ? Math.min(4, backend.threads) : 1);
      if (platform.sharedArrayBuffer) expect(backend.threads).toBeGreaterThan(1);
      expect(platform.offscreenCanvas).toBe(true);
      expect(platform.decoding).toBe('createImageBitmap');
      expect(typeof platform.imageDecoder).toBe('boolean');
      expect(platform.storageEstimate ? platform.storage?.quota : 0).toBeGreaterThanOrEqual(0);
    }, step(60_000));

    it('detect: one face on obama.jpg, with attributes', async () => {
      const { answer, ms } = await call('detect', ['obama.jpg'], 90_000);
      report.detectMs = Math.round(ms);
      expect(answer.Errors).toBeUndefined();
      expect(answer.images[0].faces).toHaveLength(1);
      expect(answer.images[0].faces[0].attributes.gender.type).toBe('M');
      // one ORT thread: a model peer on the second core (src/worker/model-peer.ts), started after the
      // first answer, takes runs of the next ones; with threads none is started
      const runs = await call('modelRuns', ['obama.jpg', 40_000], 60_000);
      report.modelRuns = runs;
      const platform = report.platform as { modelWorkers: number; sharedArrayBuffer: boolean };
      expect(platform.modelWorkers).toBe(platform.sharedArrayBuffer ? 1 : 2);
      if (platform.modelWorkers === 2) expect(runs.peer).toBeGreaterThan(0);
      else expect(runs.peer).toBe(0);
      expect(runs.here).toBeGreaterThan(0);
    }, step(150_000));

    it('enroll obama and biden (store_image on), verify, recognize', async () => {
      for (const [photo, subject] of [['obama.jpg', 'obama'], ['biden.jpg', 'biden']]) {
        const { answer } = await call('enroll', [photo, subject, 'friends'], 60_000);
        expect(answer.Errors, JSON.stringify(answer)).toBeUndefined();
        expect(answer.images[0].transaction).toMatchObject({ status: 'success', subject_id: subject, gallery_name: 'friends' });
      }
      const same = (await call('verify', ['obama2.jpg', 'obama', 'friends'], 30_000)).answer;
      const other = (await call('verify', ['obama2.jpg', 'biden', 'friends'], 30_000)).answer;
      expect(same.images[0].transaction.confidence).toBeGreaterThan(0.6);
      expect(other.images[0].transaction.confidence).toBeLessThan(0.6);
      const { answer: recognized, ms } = await call('recognize', ['obama2.jpg', 'friends'], 30_000);
      report.recognizeMs = Math.round(ms);
      expect(recognized.images[0].transaction.subject_id).toBe('obama');
      expect(recognized.images[0].candidates[0].subject_id).toBe('obama');
    }, step(200_000));

    it('decoded inputs: an ImageBitmap, a canvas, ImageData, an <img> (and a VideoFrame where there is one) answer as the JPEG; verify takes a bitmap; an EXIF-6 <img> is not turned twice', async () => {
      const d = await call('decodedInputs', ['obama.jpg', 'obama2.jpg', 'obama', 'friends'], 60_000);
      report.decodedKinds = Object.keys(d.decoded);
      expect(d.file.faces, JSON.stringify(d.file)).toHaveLength(1);
      if (name !== 'webkit') expect(Object.keys(d.decoded)).toContain('VideoFrame');
      for (const [kind, got] of Object.entries(d.decoded) as [string, Json][]) expectSameDetect(got, d.file, kind);
      expect(d.bitmapStillOpen).toBe(true);
      expect(d.verified.images?.[0]?.transaction.confidence, JSON.stringify(d.verified)).toBeGreaterThan(0.6);
      const exif = await call('decodedExif', ['biden2_exif6.jpg'], 30_000);
      expect(exif.natural).toEqual([exif.file.width, exif.file.height]);
      expectSameDetect(exif.img, exif.file, 'EXIF-6 <img>');
    }, step(90_000));

    it('gallery list / view / view_subject, and the stored photo reads back', async () => {
      const g = await call('galleries', ['friends', 'obama'], 30_000);
      expect(g.listAll.gallery_ids).toContain('friends');
      expect([...g.view.subject_ids].sort()).toEqual(['biden', 'obama']);
      expect(g.viewSubject.face_ids).toHaveLength(1);
      expect(g.templates).toHaveLength(1);
      expect(g.templates[0].has_image).toBe(true);
      const photo = await call('storedPhoto', ['friends', 'obama'], 30_000);
      expect(photo.type).toBe('image/jpeg');
      expect(photo.bytes).toBe(readFileSync(resolve(DATA_DIR, PHOTOS['obama.jpg'])).length);
      expect(photo.decoded.width).toBeGreaterThan(100);
    }, step(60_000));

    it('exportGallery → importGallery under another name, then recognize in the copy', async () => {
      const { exported, imported } = await call('exportImport', ['friends', 'friends-copy'], 60_000);
      expect(exported.subjects.map((s: { subject_id: string }) => s.subject_id).sort()).toEqual(['biden', 'obama']);
      expect(imported).toMatchObject({ gallery_name: 'friends-copy', templates: 2 });
      const { answer } = await call('recognize', ['biden2.jpg', 'friends-copy'], 30_000);
      expect(answer.images[0].candidates[0].subject_id).toBe('biden');
    }, step(90_000));

    it('the fetch and XHR shims answer api.kairos.com in the page (JSON and multipart bodies)', async () => {
      const s = await call('shims', ['obama.jpg', 'obama2.jpg', 'friends'], 60_000);
      expect(s.fetched.status).toBe(200);
      expect(s.fetched.contentType).toMatch(/application\/json/);
      expect(s.fetched.body.images[0].candidates[0].subject_id).toBe('obama');
      expect(s.xhr.status).toBe(200);
      expect(s.xhr.body.images[0].faces).toHaveLength(1);
      expect(s.unauthorised.status).toBe(403);
      expect(s.unauthorised.body.Errors[0].ErrCode).toBe(3003);
      // multipart/form-data with a File, through fetch and XHR
      expect(s.multipartFetch.status, JSON.stringify(s.multipartFetch.body)).toBe(200);
      expect(s.multipartFetch.body.images[0].candidates[0].subject_id).toBe('obama');
      expect(s.multipartXhr.status, JSON.stringify(s.multipartXhr.body)).toBe(200);
      expect(s.multipartXhr.body.images[0].faces).toHaveLength(1);
    }, step(60_000));

    for (const how of ['throw', 'abort'] as const) {
      it(`an IndexedDB write that fails (${how === 'throw' ? 'put/add throw UnknownError' : 'the transaction aborts'}) answers a Kairos error within ${STORE_FAILURE_BOUND_MS / 1000} s and changes nothing`, async () => {
        const before = await call('view', ['friends'], 30_000);
        const outcome = await call('enrollWithFailingStore', ['obama3.jpg', `ghost-${how}`, 'friends', how, STORE_FAILURE_BOUND_MS], STORE_FAILURE_BOUND_MS + 15_000);
        (report.storeFailure ??= {} as Record<string, unknown>) && ((report.storeFailure as Record<string, unknown>)[how] = outcome);
        expect(outcome.settled, `enroll did not settle within ${STORE_FAILURE_BOUND_MS} ms with a failing IndexedDB (${outcome.failedWrites} writes failed)`).toBe(true);
        expect(outcome.failedWrites).toBeGreaterThan(0);
        expect(outcome.answer.Errors, JSON.stringify(outcome.answer)).toHaveLength(1);
        expect(outcome.answer.Errors[0]).toEqual({ ErrCode: expect.any(Number), Message: expect.any(String) });
        expect(await call('view', ['friends'], 30_000)).toEqual(before);
        // and the engine still works once IndexedDB does again
        const { answer } = await call('recognize', ['obama2.jpg', 'friends'], 30_000);
        expect(answer.images[0].candidates[0].subject_id).toBe('obama');
      }, step(STORE_FAILURE_BOUND_MS + 80_000));
    }

    it('gallery remove_subject and remove', async () => {
      expect((await call('removeSubject', ['friends', 'biden'], 30_000)).status).toBe('Complete');
      expect((await call('view', ['friends'], 30_000)).subject_ids).toEqual(['obama']);
      expect((await call('removeGallery', ['friends-copy'], 30_000)).status).toBe('Complete');
      expect((await call('listAll', [], 30_000)).gallery_ids).not.toContain('friends-copy');
    }, step(60_000));

    it('/v2/media on a short clip the browser plays', async () => {
      const playable = await call('playable', [Object.fromEntries(CLIPS.map((c) => [c.name, c.type]))], 10_000);
      report.canPlay = playable;
      const clip = CLIPS.find((c) => playable[c.name] !== '');
      expect(clip, `${name} plays none of the clips: canPlayType gave ${JSON.stringify(playable)}`).toBeDefined();
      await call('putFile', [clip!.name, base64File(clip!.path), typeOf(clip!.path)], 30_000);
      const m = await call('media', [clip!.name, limit(150_000)], 160_000);
      report.media = { clip: clip!.name, ms: Math.round(m.ms), frames: m.frames, framesWithPeople: m.framesWithPeople };
      expect(m.status_code, JSON.stringify(m)).toBe(4);
      expect(m.media_info.type).toBe('video');
      expect(m.frames).toBeGreaterThan(0);
      expect(m.framesWithPeople).toBeGreaterThan(0);
      expect(m.impressions).toBeGreaterThan(0);
      expect(m.deleted.status_code).toBe('5');
    }, step(180_000));

    it('engine.watch follows the face of a clip playing in a <video>, and of VideoFrames taken from it', async () => {
      const playable = await call('playable', [Object.fromEntries(CLIPS.map((c) => [c.name, c.type]))], 10_000);
      const clip = CLIPS.find((c) => playable[c.name] !== '');
      expect(clip, `${name} plays none of the clips`).toBeDefined();
      await call('putFile', [clip!.name, base64File(clip!.path), typeOf(clip!.path)], 30_000);
      const w = await call('watchClip', [clip!.name, 8, limit(60_000)], 150_000);
      report.watch = w;
      expect(w.element.results, JSON.stringify(w)).toBeGreaterThan(0);
      expect(w.element.withFace, JSON.stringify(w)).toBeGreaterThan(0);
      if (w.videoFrames) expect(w.videoFrames.withFace, JSON.stringify(w)).toBeGreaterThan(0);
    }, step(150_000));

    demoFlows(() => browser, { name, limit, step, report, baseUrl: () => inject('enginesBaseUrl') });
  });
}
