// The analysed video played back with each person's box and id drawn over it, in step with
// playback: at media time t the overlay shows the last sampled frame at or before t. Frames
// are followed with requestVideoFrameCallback (the exact media time of each painted frame),
// with timeupdate/seeked and requestAnimationFrame as the fallback. Listeners hear the time
// (charts move their playheads, the "right now" panel its values).
import { h } from '../ui/dom.ts';
import { dominant, type EmotionValues } from './emotions.ts';

export interface PlaybackPerson {
  id: string;
  color: string;
}

export interface PlaybackFrame {
  /** media time, seconds */
  timeS: number;
  people: { person_id: string; face: { x: number; y: number; width: number; height: number }; emotions: EmotionValues }[];
}

export interface PlaybackOptions {
  /** the video's file name, for labels */
  name: string;
  frames: readonly PlaybackFrame[];
  people: readonly PlaybackPerson[];
  /** the analysed length (seconds): used while the file itself does not say (recorded WebM) */
  durationS: number;
}

type VideoWithFrameCallback = HTMLVideoElement & {
  requestVideoFrameCallback?(callback: (now: number, metadata: { mediaTime: number }) => void): number;
  cancelVideoFrameCallback?(handle: number): void;
};

/** Index of the last frame at or before `timeS`, -1 before the first. */
function frameIndexAt(frames: readonly PlaybackFrame[], timeS: number): number {
  let lo = 0;
  let hi = frames.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (frames[mid]!.timeS <= timeS + 1e-3) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export class Playback {
  readonly element: HTMLElement;
  readonly video: VideoWithFrameCallback;
  private readonly canvas: HTMLCanvasElement;
  private readonly url: string;
  private readonly listeners = new Set<(timeS: number, frameIndex: number) => void>();
  private readonly colors: Map<string, string>;
  private readonly resize: ResizeObserver;
  private frameHandle: number | undefined;
  private rafHandle: number | undefined;
  private lastTime = -1;
  private lastFrame = -2;
  private destroyed = false;
  /** while the duration of a recorded WebM is being found (the far seek is not shown) */
  private settling = false;
  /** element and video size of the last drawing */
  private drawnSize = '';

  constructor(blob: Blob, private readonly options: PlaybackOptions) {
    this.colors = new Map(options.people.map((p) => [p.id, p.color]));
    this.url = URL.createObjectURL(blob);
    this.video = h('video', {
      class: 'playback-video',
      controls: true,
      playsinline: true,
      preload: 'auto',
      'aria-label': `${options.name}, analysed video with the faces marked`,
    }) as VideoWithFrameCallback;
    this.video.muted = true;
    this.canvas = h('canvas', { class: 'playback-overlay', 'aria-hidden': 'true' });
    this.element = h('div', { class: 'playback-stage' }, this.video, this.canvas);

    const v = this.video;
    v.addEventListener('loadedmetadata', () => void this.settleDuration());
    for (const type of ['loadeddata', 'seeked', 'seeking', 'timeupdate', 'pause']) v.addEventListener(type, () => this.update(v.currentTime));
    v.addEventListener('play', () => this.follow());
    this.resize = new ResizeObserver(() => this.update(v.currentTime, true));
    this.resize.observe(this.element);
    v.src = this.url;
    this.follow();
  }

  /** Hears every new media time (seconds) and the index of the frame shown for it. */
  onTime(listener: (timeS: number, frameIndex: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  seek(timeS: number): void {
    const duration = Number.isFinite(this.video.duration) ? this.video.duration : this.options.durationS;
    // a hair past the sample so the decoder shows the frame the sample was taken from
    this.video.currentTime = Math.min(Math.max(0, timeS + 0.001), Math.max(0, duration - 0.001));
    this.update(timeS);
  }

  destroy(): void {
    this.destroyed = true;
    this.resize.disconnect();
    if (this.frameHandle !== undefined) this.video.cancelVideoFrameCallback?.(this.frameHandle);
    if (this.rafHandle !== undefined) cancelAnimationFrame(this.rafHandle);
    this.video.pause();
    this.video.removeAttribute('src');
    this.video.load();
    URL.revokeObjectURL(this.url);
    this.listeners.clear();
  }

  /**
   * A WebM written by MediaRecorder has no duration in its header (Infinity): the seek bar
   * would not work. Seeking far past the end makes Chromium find it; then back to the start.
   */
  private async settleDuration(): Promise<void> {
    const v = this.video;
    if (Number.isFinite(v.duration)) return;
    this.settling = true;
    await new Promise<void>((resolve) => {
      const done = () => {
        v.removeEventListener('durationchange', check);
        v.removeEventListener('seeked', done);
        resolve();
      };
      const check = () => {
        if (Number.isFinite(v.duration)) done();
      };
      v.addEventListener('durationchange', check);
      v.addEventListener('seeked', done);
      v.currentTime = 1e9;
    });
    this.settling = false;
    if (this.destroyed) return;
    v.currentTime = 0;
    this.update(0, true);
  }

  /** Keeps the overlay on the painted frame: per video frame when supported, else per animation frame while playing. */
  private follow(): void {
    const v = this.video;
    if (this.destroyed) return;
    if (v.requestVideoFrameCallback) {
      if (this.frameHandle !== undefined) v.cancelVideoFrameCallback?.(this.frameHandle);
      const onFrame = (_now: number, meta: { mediaTime: number }) => {
        if (this.destroyed) return;
        this.update(meta.mediaTime);
        this.frameHandle = v.requestVideoFrameCallback!(onFrame);
      };
      this.frameHandle = v.requestVideoFrameCallback(onFrame);
    } else {
      const tick = () => {
        if (this.destroyed) return;
        this.update(v.currentTime);
        this.rafHandle = v.paused || v.ended ? undefined : requestAnimationFrame(tick);
      };
      if (this.rafHandle === undefined) this.rafHandle = requestAnimationFrame(tick);
    }
  }

  private update(timeS: number, force = false): void {
    if (this.destroyed || this.settling) return;
    const v = this.video;
    const dpr = window.devicePixelRatio || 1;
    // the element changed size (metadata arrived, the window resized): draw again whatever the frame
    const sized = `${Math.round(v.clientWidth * dpr)}x${Math.round(v.clientHeight * dpr)}:${v.videoWidth}x${v.videoHeight}`;
    if (sized !== this.drawnSize) force = true;
    const index = frameIndexAt(this.options.frames, timeS);
    if (force || index !== this.lastFrame) this.draw(index);
    if (force || Math.abs(timeS - this.lastTime) > 1e-4 || index !== this.lastFrame) {
      this.lastTime = timeS;
      this.lastFrame = index;
      for (const listener of this.listeners) listener(timeS, index);
    }
  }

  /** Boxes and labels of frame `index`, mapped onto the video's picture inside its element (letterboxing included). */
  private draw(index: number): void {
    const v = this.video;
    const canvas = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const cw = v.clientWidth;
    const ch = v.clientHeight;
    this.drawnSize = `${Math.round(cw * dpr)}x${Math.round(ch * dpr)}:${v.videoWidth}x${v.videoHeight}`;
    canvas.width = Math.max(1, Math.round(cw * dpr));
    canvas.height = Math.max(1, Math.round(ch * dpr));
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cw, ch);
    const frame = this.options.frames[index];
    if (!frame || !v.videoWidth || !v.videoHeight) return;
    const scale = Math.min(cw / v.videoWidth, ch / v.videoHeight);
    const ox = (cw - v.videoWidth * scale) / 2;
    const oy = (ch - v.videoHeight * scale) / 2;
    const font = Math.max(12, Math.min(16, Math.round(cw / 45)));
    ctx.font = `600 ${font}px system-ui, sans-serif`;
    ctx.textBaseline = 'middle';
    ctx.lineWidth = 2.5;
    for (const p of frame.people) {
      const color = this.colors.get(p.person_id) ?? '#3d63dd';
      const x = ox + p.face.x * scale;
      const y = oy + p.face.y * scale;
      const w = p.face.width * scale;
      const hgt = p.face.height * scale;
      ctx.strokeStyle = color;
      ctx.strokeRect(x, y, w, hgt);
      const mood = dominant(p.emotions);
      const label = `Person ${p.person_id} · ${mood.name} ${Math.round(mood.value)}%`;
      const pad = 5;
      const tw = ctx.measureText(label).width + pad * 2;
      const th = font + pad * 2;
      const lx = Math.min(Math.max(0, x - 1), Math.max(0, cw - tw));
      const ly = y - th >= 0 ? y - th : Math.min(y + hgt, ch - th);
      ctx.fillStyle = color;
      ctx.fillRect(lx, ly, tw, th);
      ctx.fillStyle = '#fff';
      ctx.fillText(label, lx + pad, ly + th / 2 + 1);
    }
  }
}
