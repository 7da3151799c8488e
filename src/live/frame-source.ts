// Where watch() takes its frames from, on the page's main thread, latest frame wins: a tap
// holds at most the newest frame and counts every frame that was shown but never taken.
//   <video>        requestVideoFrameCallback tells when a new frame is shown; the frame is
//                  copied with createImageBitmap (GPU-side, no encode) when the loop takes it
//   MediaStream    its video track's frames as VideoFrames (MediaStreamTrackProcessor), else
//                  through a <video> element
//   VideoFrame async iterator: read eagerly, the newest kept (or one by one, dropFrames=false)
// Frames then go to the vision worker as transferables: never re-encoded.

export interface TakenFrame {
  frame: ImageBitmap | VideoFrame;
  /** the source's time of the frame, ms */
  timeMs: number;
}

export interface FrameTap {
  /** the newest frame not yet taken (waits for one); null once the source has ended or the tap is closed */
  next(): Promise<TakenFrame | null>;
  /** frames the source gave that were never taken (replaced by a newer one) */
  readonly dropped: number;
  close(): void;
}

export type WatchSource = HTMLVideoElement | MediaStream | AsyncIterable<VideoFrame>;

/** A promise that can be resolved from outside, re-armed after each use. */
class Signal {
  private waiting: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  fire(): void {
    const w = this.waiting;
    this.waiting = [];
    for (const resolve of w) resolve();
  }
}

/** Frames of a playing <video> (or one showing a MediaStream). */
class VideoTap implements FrameTap {
  dropped = 0;
  private presented = 0;
  private taken = 0;
  private mediaTimeMs = 0;
  private closed = false;
  private handle = 0;
  private readonly changed = new Signal();
  private readonly onEnded = () => {
    this.changed.fire();
  };

  constructor(
    private readonly video: HTMLVideoElement,
    private readonly maxSide: number,
    private readonly onClose?: () => void,
  ) {
    const tick: VideoFrameRequestCallback = (_now, meta) => {
      if (this.closed) return;
      // frames shown before the first one we saw are not ours to count
      if (this.presented === 0) this.taken = meta.presentedFrames - 1;
      this.presented = meta.presentedFrames;
      this.mediaTimeMs = meta.mediaTime * 1000;
      this.changed.fire();
      this.handle = video.requestVideoFrameCallback(tick);
    };
    this.handle = video.requestVideoFrameCallback(tick);
    video.addEventListener('ended', this.onEnded);
  }

  async next(): Promise<TakenFrame | null> {
    for (;;) {
      if (this.closed) return null;
      if (this.presented > this.taken && this.video.readyState >= 2) break;
      if (this.video.ended) return null;
      await this.changed.wait();
    }
    this.dropped += Math.max(0, this.presented - this.taken - 1);
    this.taken = this.presented;
    const v = this.video;
    const w = v.videoWidth;
    const h = v.videoHeight;
    const scale = Math.max(w, h) > this.maxSide ? this.maxSide / Math.max(w, h) : 1;
    const frame =
      scale === 1
        ? await createImageBitmap(v)
        : await createImageBitmap(v, { resizeWidth: Math.round(w * scale), resizeHeight: Math.round(h * scale), resizeQuality: 'medium' });
    return { frame, timeMs: this.mediaTimeMs };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.video.cancelVideoFrameCallback(this.handle);
    this.video.removeEventListener('ended', this.onEnded);
    this.changed.fire();
    this.onClose?.();
  }
}

/** Frames of a VideoFrame iterator: eagerly read, the newest kept, or one at a time. */
class IteratorTap implements FrameTap {
  dropped = 0;
  private latest: VideoFrame | null = null;
  private ended = false;
  private closed = false;
  private readonly changed = new Signal();
  private readonly iterator: AsyncIterator<VideoFrame>;
  private failure: unknown;

  constructor(
    source: AsyncIterable<VideoFrame>,
    private readonly eager: boolean,
    private readonly onClose?: () => void,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
    if (eager) void this.pump();
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const r = await this.iterator.next();
        if (r.done) break;
        if (this.closed) {
          r.value.close();
          break;
        }
        if (this.latest) {
          this.latest.close();
          this.dropped++;
        }
        this.latest = r.value;
        this.changed.fire();
      }
    } catch (e) {
      this.failure = e;
    }
    this.ended = true;
    this.changed.fire();
  }

  async next(): Promise<TakenFrame | null> {
    if (!this.eager) {
      if (this.closed) return null;
      const r = await this.iterator.next();
      if (r.done) return null;
      if (this.closed) {
        r.value.close();
        return null;
      }
      return { frame: r.value, timeMs: r.value.timestamp / 1000 };
    }
    while (!this.latest) {
      if (this.failure) throw this.failure;
      if (this.closed || this.ended) return null;
      await this.changed.wait();
    }
    const frame = this.latest;
    this.latest = null;
    return { frame, timeMs: frame.timestamp / 1000 };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.latest?.close();
    this.latest = null;
    this.changed.fire();
    void this.iterator.return?.();
    this.onClose?.();
  }
}

declare class MediaStreamTrackProcessor<T> {
  constructor(init: { track: MediaStreamTrack; maxBufferSize?: number });
  readonly readable: ReadableStream<T>;
}

/** The frames of a track processor's stream; ends when `ended()` says the source is gone. */
async function* readableFrames(readable: ReadableStream<VideoFrame>, ended: () => boolean = () => false): AsyncGenerator<VideoFrame> {
  const reader = readable.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (ended()) {
        value.close();
        return;
      }
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function isVideoElement(s: WatchSource): s is HTMLVideoElement {
  return typeof HTMLVideoElement !== 'undefined' && s instanceof HTMLVideoElement;
}

const isStream = (s: unknown): s is MediaStream => typeof MediaStream !== 'undefined' && s instanceof MediaStream;

export async function openTap(source: WatchSource, o: { maxSide: number; dropFrames: boolean }): Promise<FrameTap> {
  const Processor = (globalThis as { MediaStreamTrackProcessor?: typeof MediaStreamTrackProcessor }).MediaStreamTrackProcessor;
  // a <video> showing a camera: its frames straight from the track (a clone, stopped when done)
  // rather than from what the page renders, which a busy main thread slows down (measured
  // with bench:live on a loaded machine: ~9 results/s through requestVideoFrameCallback at a
  // 45 ms latency)
  if (isVideoElement(source) && isStream(source.srcObject) && source.srcObject.getVideoTracks()[0] && Processor) {
    const stream = source.srcObject;
    const original = stream.getVideoTracks()[0]!;
    const track = original.clone();
    // the clone would keep the camera on: end with the element's stream (stopped or replaced)
    const ended = () => original.readyState === 'ended' || source.srcObject !== stream;
    return new IteratorTap(readableFrames(new Processor<VideoFrame>({ track, maxBufferSize: 1 }).readable, ended), true, () => track.stop());
  }
  if (isVideoElement(source)) return new VideoTap(source, o.maxSide);
  if (isStream(source)) {
    const track = source.getVideoTracks()[0];
    if (!track) throw new TypeError('watch(): the MediaStream has no video track');
    if (Processor) {
      // the processor's own buffer holds one frame; ours keeps the newest
      return new IteratorTap(readableFrames(new Processor<VideoFrame>({ track, maxBufferSize: 1 }).readable), true);
    }
    const video = document.createElement('video');
    video.muted = true;
    video.playsInline = true;
    video.srcObject = source;
    await video.play();
    return new VideoTap(video, o.maxSide, () => {
      video.pause();
      video.srcObject = null;
    });
  }
  if (source && typeof (source as AsyncIterable<VideoFrame>)[Symbol.asyncIterator] === 'function') {
    return new IteratorTap(source as AsyncIterable<VideoFrame>, o.dropFrames);
  }
  throw new TypeError('watch(): the source must be a <video>, a MediaStream or an async iterable of VideoFrames');
}
