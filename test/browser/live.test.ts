// engine.watch() on real videos in Chromium: the real worker, models and IndexedDB galleries.
// Frames come one at a time from a seeking decoder (dropFrames: false), so every run sees the
// same frames; the fake-camera path (latest frame wins) is driven by the e2e test and bench:live.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import synthUrl from '../../../shared/data/video/synthetic_panzoom_biden_vp9.webm?url';
import hamiltonUrl from '../../../shared/data/video/short_hamilton_clip.mp4?url';
import bidenUrl from '../../../shared/data/faces/biden/biden.jpg?url';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import linUrl from '../../../shared/data/faces/lin_manuel_miranda/lin-manuel-miranda.png?url';
import { createEngine, type Engine, type LiveFace, type LiveFrame } from '../../src/index.ts';
import { videoFrames } from './helpers/video-frames.ts';

let engine: Engine;
const blobOf = async (url: string) => (await fetch(url)).blob();

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm', storageName: `live-test-${Date.now()}` });
  for (const [gallery, subject, url] of [
    ['with-biden', 'biden', bidenUrl],
    ['with-biden', 'obama', obamaUrl],
    ['hamilton', 'lin_manuel_miranda', linUrl],
    ['hamilton', 'obama', obamaUrl],
  ] as const) {
    const r = await engine.enroll({ image: await blobOf(url), subject_id: subject, gallery_name: gallery });
    expect(r, JSON.stringify(r)).not.toHaveProperty('Errors');
  }
});
afterAll(() => engine?.close());

/** The synthetic clip playing, muted and looping, in a <video> of its own. */
async function playingSynthVideo(): Promise<HTMLVideoElement> {
  const video = document.createElement('video');
  video.muted = true;
  video.loop = true;
  video.src = synthUrl;
  await video.play();
  return video;
}

const captureStream = (video: HTMLVideoElement): MediaStream => (video as HTMLVideoElement & { captureStream(): MediaStream }).captureStream();

async function collect(frames: AsyncIterable<VideoFrame>, options: Parameters<Engine['watch']>[1] = {}): Promise<LiveFrame[]> {
  const out: LiveFrame[] = [];
  for await (const f of engine.watch(frames, { dropFrames: false, ...options })) out.push(f);
  return out;
}

/**
 * The Hamilton clip by hand (media times in ms, boxes' centre x in its 640×360 frame): a wide
 * stage shot with Lin-Manuel Miranda small on the right; a profile close-up (no expectation:
 * the detector finds no face in profile); Lin-Manuel in a medium shot moving around; the
 * audience: a woman at the left edge, Marian Robinson, Barack and Michelle Obama.
 */
const PEOPLE = [
  { who: 'lin-stage', from: 0, to: 1500, x: [470, 620] },
  { who: 'lin-close', from: 3600, to: 7800, x: [100, 380] },
  { who: 'woman-left', from: 7900, to: 10100, x: [0, 125] },
  { who: 'marian', from: 7900, to: 10100, x: [125, 265] },
  { who: 'barack', from: 7900, to: 10100, x: [265, 378] },
  { who: 'michelle', from: 7900, to: 10100, x: [378, 500] },
] as const;

function whoIs(frame: LiveFrame, face: LiveFace): string | undefined {
  const cx = face.box.x + face.box.width / 2;
  return PEOPLE.find((p) => frame.time_ms >= p.from && frame.time_ms <= p.to && cx >= p.x[0] && cx < p.x[1])?.who;
}

describe('engine.watch', () => {
  it('follows the one face of the synthetic clip with one track id, detecting only now and then', async () => {
    const frames = await collect(videoFrames(synthUrl, 12.5));
    expect(frames.length).toBe(63);
    expect(frames.every((f) => f.faces.length === 1)).toBe(true);
    expect(new Set(frames.map((f) => f.faces[0]!.track_id))).toEqual(new Set(['1']));
    const f = frames[10]!.faces[0]!;
    expect(f.box.width).toBeGreaterThan(50);
    expect(Object.keys(f.landmarks)).toHaveLength(49);
    expect(Object.keys(f.emotions!)).toEqual(['anger', 'disgust', 'fear', 'joy', 'sadness', 'surprise']);
    expect(Math.abs(f.pose.yaw)).toBeLessThan(45);
    // emotions are re-measured every 200 ms (by default) and always say when they were measured
    const measured = frames.map((x) => x.faces[0]!.emotions_time_ms!);
    expect(frames.every((x, i) => measured[i]! <= x.time_ms && x.time_ms - measured[i]! < 300)).toBe(true);
    expect(new Set(measured).size).toBeGreaterThanOrEqual(15);
    // the detector runs on its 1 s schedule (every ~12th frame here) and after losses, not on every frame
    const detections = frames.filter((x) => x.detector_ran).length;
    expect(detections).toBeLessThan(frames.length / 6);
    expect(frames.filter((x) => x.faces[0]!.detected).length).toBeGreaterThan(0);
  });

  it('keeps each person of the Hamilton clip on one track id, with no id shared between people', async () => {
    const frames = await collect(videoFrames(hamiltonUrl, 10), { analyses: 'boxes' });
    const idsOf = new Map<string, Set<string>>();
    const whoOf = new Map<string, Set<string>>();
    for (const frame of frames) {
      for (const face of frame.faces) {
        const who = whoIs(frame, face) ?? `unexpected face at ${frame.time_ms} ms x=${Math.round(face.box.x)}`;
        idsOf.set(who, (idsOf.get(who) ?? new Set()).add(face.track_id));
        whoOf.set(face.track_id, (whoOf.get(face.track_id) ?? new Set()).add(who));
      }
    }
    // every id is one person, every person one id
    for (const [id, who] of whoOf) expect([...who], `track ${id}`).toHaveLength(1);
    for (const [who, ids] of idsOf) expect([...ids], who).toHaveLength(1);
    // Lin-Manuel is followed through his whole medium shot, and Obama is found in the audience
    const close = frames.filter((f) => f.time_ms >= 3600 && f.time_ms <= 7800);
    expect(close.filter((f) => f.faces.some((x) => whoIs(f, x) === 'lin-close')).length).toBeGreaterThanOrEqual(close.length - 1);
    expect(idsOf.has('barack')).toBe(true);
  });

  it('follows the half-turned faces of the audience shot, not only the frontal one', async () => {
    // three of its four faces are half-turned; measured at 10 fps: Barack Obama in 18 of 21 frames,
    // 1.57 faces a frame (before a false whole-frame box across him and Michelle hid both, and
    // before unsure new faces got shifted mesh crops: 7 of 21, 1.19)
    const frames = await collect(videoFrames(hamiltonUrl, 10, 7.9, 10.0), { analyses: 'emotion' });
    const seen = (who: string) => frames.filter((f) => f.faces.some((x) => whoIs(f, x) === who)).length;
    const faces = frames.reduce((n, f) => n + f.faces.length, 0);
    expect(seen('barack'), 'Barack Obama (half-turned)').toBeGreaterThanOrEqual(frames.length / 2);
    expect(faces / frames.length, 'faces per frame').toBeGreaterThanOrEqual(1.4);
  });

  it('at 640×480 (the audience shot letterboxed, as from a webcam) follows the small frontal faces too', async () => {
    // the faces are ~55 px: searched down to 7% of the frame's height (the default) they are found,
    // at 10% (the earlier default) the woman at the left edge was never followed
    async function* letterboxed(): AsyncGenerator<VideoFrame> {
      const canvas = new OffscreenCanvas(640, 480);
      const g = canvas.getContext('2d')!;
      for await (const f of videoFrames(hamiltonUrl, 10, 7.9, 9.0)) {
        g.fillStyle = '#000';
        g.fillRect(0, 0, 640, 480);
        g.drawImage(f, 0, 60, 640, 360);
        const timestamp = f.timestamp;
        f.close();
        yield new VideoFrame(canvas, { timestamp });
      }
    }
    const frames = await collect(letterboxed(), { analyses: 'boxes' });
    // whoIs() looks at x only: the letterbox moved the faces down, not sideways
    const seen = (who: string) => frames.filter((f) => f.faces.some((x) => whoIs(f, x) === who)).length;
    expect(frames[0]!.width).toBe(640);
    expect(seen('woman-left'), 'the woman at the left edge').toBeGreaterThanOrEqual(frames.length / 2);
    expect(seen('barack'), 'Barack Obama').toBeGreaterThanOrEqual(frames.length / 2);
  });

  it('names an enrolled person within their first second and never names someone not enrolled', async () => {
    // Biden enrolled: named within 1 s of his first frame, and only ever as Biden
    const named = await collect(videoFrames(synthUrl, 12.5, 0, 3), { galleryName: 'with-biden' });
    const first = named.find((f) => f.faces.length > 0)!;
    const firstNamed = named.find((f) => f.faces[0]?.subject?.subject_id === 'biden');
    expect(firstNamed, 'Biden is named').toBeDefined();
    expect(firstNamed!.time_ms - first.time_ms).toBeLessThanOrEqual(1000);
    const subjects = new Set(named.flatMap((f) => f.faces.map((x) => x.subject?.subject_id ?? null)));
    expect([...subjects].filter((s) => s !== null && s !== 'biden')).toEqual([]);
    // once named, the name holds (no flicker)
    const after = named.slice(named.indexOf(firstNamed!));
    expect(after.every((f) => f.faces[0]?.subject?.subject_id === 'biden')).toBe(true);

    // Hamilton against Lin-Manuel and Obama: nobody else is ever named, and a name is always the right person's
    const frames = await collect(videoFrames(hamiltonUrl, 10), { galleryName: 'hamilton' });
    const shouldBe: Record<string, string | undefined> = { 'lin-stage': 'lin_manuel_miranda', 'lin-close': 'lin_manuel_miranda', barack: 'obama' };
    const firstSeen = new Map<string, number>();
    const firstNamedAt = new Map<string, number>();
    for (const frame of frames) {
      for (const face of frame.faces) {
        const who = whoIs(frame, face)!;
        if (!firstSeen.has(face.track_id)) firstSeen.set(face.track_id, frame.time_ms);
        const subject = face.subject?.subject_id;
        if (subject === undefined) continue;
        expect(subject, `${who} at ${frame.time_ms} ms`).toBe(shouldBe[who]);
        if (!firstNamedAt.has(face.track_id)) firstNamedAt.set(face.track_id, frame.time_ms);
      }
    }
    const linTrack = frames.flatMap((f) => f.faces.filter((x) => whoIs(f, x) === 'lin-close'))[0]!.track_id;
    expect(firstNamedAt.get(linTrack), 'Lin-Manuel named in his medium shot').toBeDefined();
    expect(firstNamedAt.get(linTrack)! - firstSeen.get(linTrack)!).toBeLessThanOrEqual(1000);
  });

  it('takes a <video> element: latest frame wins, dropped frames counted, stop() ends it', async () => {
    const video = await playingSynthVideo();
    const seen: LiveFrame[] = [];
    const live = engine.watch(video, { targetFps: 30, onFrame: (f) => seen.push(f) });
    const iterated: LiveFrame[] = [];
    for await (const f of live) {
      iterated.push(f);
      if (iterated.length === 15) await live.stop();
    }
    await live.done;
    video.pause();
    expect(iterated.length).toBeGreaterThanOrEqual(15);
    expect(seen.length).toBe(iterated.length);
    expect(seen.filter((f) => f.faces.length === 1).length).toBeGreaterThanOrEqual(12);
    // the video plays at 25 fps whatever the engine does: what it could not take is counted
    const last = seen.at(-1)!;
    expect(last.index).toBe(seen.length - 1);
    expect(last.dropped).toBeGreaterThanOrEqual(0);
    expect(seen.every((f) => f.latency_ms > 0)).toBe(true);
    expect(last.fps).toBeGreaterThan(0);
  });

  it('takes a MediaStream (its frames as VideoFrames) and follows the face in it', async () => {
    const video = await playingSynthVideo();
    const stream = captureStream(video);
    const seen: LiveFrame[] = [];
    const live = engine.watch(stream, { onFrame: (f) => seen.push(f) });
    while (seen.filter((f) => f.faces.length === 1).length < 10) await new Promise((r) => setTimeout(r, 100));
    await live.stop();
    video.pause();
    const withFace = seen.filter((f) => f.faces.length === 1);
    expect(withFace[0]!.width).toBe(640);
    expect(new Set(withFace.map((f) => f.faces[0]!.track_id)).size).toBe(1);
    expect(seen.every((f, i) => i === 0 || f.time_ms >= seen[i - 1]!.time_ms)).toBe(true);
  });

  it('a <video> showing a stream is read from the stream, and the watch ends when the stream stops', async () => {
    const file = await playingSynthVideo();
    const stream = captureStream(file);
    const shown = document.createElement('video');
    shown.muted = true;
    shown.srcObject = stream;
    await shown.play();
    let results = 0;
    const live = engine.watch(shown, { onFrame: () => results++ });
    while (results < 3) await new Promise((r) => setTimeout(r, 50));
    for (const t of stream.getTracks()) t.stop();
    shown.srcObject = null;
    await live.done; // ends by itself: no stop() call
    file.pause();
    expect(results).toBeGreaterThanOrEqual(3);
  });

  it('engine.close() during a running watch ends it: done resolves and the iterator ends', async () => {
    // its own engine: closing the shared one would end the other tests
    const other = await createEngine({ backend: 'wasm', storageName: `live-close-${Date.now()}` });
    const video = await playingSynthVideo();
    const live = other.watch(video);
    const iterated: LiveFrame[] = [];
    const timeout = (what: string) => new Promise<string>((r) => setTimeout(() => r(`${what} still pending 5 s after close()`), 5000));
    const iteration = (async () => {
      for await (const f of live) {
        iterated.push(f);
        // closed while a frame is in the worker (the loop sends the next one at once)
        if (iterated.length === 3) other.close();
      }
      return 'ended';
    })();
    expect(await Promise.race([iteration, timeout('the iterator')])).toBe('ended');
    expect(await Promise.race([live.done.then(() => 'resolved'), timeout('done')])).toBe('resolved');
    await live.stop(); // harmless afterwards
    video.pause();
    expect(iterated.length).toBeGreaterThanOrEqual(3);
    // a watch started on a closed engine ends at once too
    const late = other.watch(videoFrames(synthUrl, 5, 0, 1), { dropFrames: false });
    expect(await Promise.race([late.done.then(() => 'resolved'), timeout('a late watch')])).toBe('resolved');
  });

  it('rejects bad options with error 1003 and an unknown gallery with 5004', async () => {
    expect(() => engine.watch(document.createElement('video'), { maxFaces: 0 })).toThrow(/maxFaces/);
    const live = engine.watch(videoFrames(synthUrl, 5, 0, 1), { galleryName: 'no-such-gallery', dropFrames: false });
    await expect(live.done).rejects.toMatchObject({ failure: { code: 5004 } });
  });
});
