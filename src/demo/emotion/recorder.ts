// Recording a short clip from the shared webcam with MediaRecorder: a live preview, a
// visible timer counting to the limit, start/stop, and the recording handed over as a WebM
// (or MP4) file. The camera is released as soon as the clip is taken or the box is closed.
import type { Camera } from '../ui/camera.ts';
import { button, h } from '../ui/dom.ts';
import { describeCameraError } from '../ui/messages.ts';

/** Longest recording; the recorder stops itself there. */
export const MAX_RECORDING_MS = 15_000;

export interface RecorderOptions {
  camera: Camera;
  maxMs?: number;
  /** the finished recording */
  onRecording(file: File): void;
  /** camera refused, no MediaRecorder, an empty recording */
  onProblem(message: string): void;
  /** the box opened or closed (the screen hides its other source while recording) */
  onOpenChange?(open: boolean): void;
}

/** The first container/codec this browser records. */
function recordingType(): string | undefined {
  const candidates = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm', 'video/mp4'];
  return candidates.find((t) => MediaRecorder.isTypeSupported(t));
}

const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/** Why the webcam could not start, said for this screen (a video file is the alternative here). */
export function cameraProblem(error: unknown): string {
  return describeCameraError(error).replace(/use a photo instead/i, 'upload a video file instead');
}

export class WebcamRecorder {
  readonly element: HTMLElement;
  private readonly preview: HTMLVideoElement;
  private readonly timer: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private readonly status: HTMLElement;
  private readonly startButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly closeButton: HTMLButtonElement;
  private readonly maxMs: number;
  private recorder: MediaRecorder | undefined;
  private chunks: Blob[] = [];
  private started = 0;
  private tick: ReturnType<typeof setInterval> | undefined;
  private limit: ReturnType<typeof setTimeout> | undefined;
  private discard = false;
  private opening = false;

  constructor(private readonly options: RecorderOptions) {
    this.maxMs = options.maxMs ?? MAX_RECORDING_MS;
    this.preview = h('video', { class: 'recorder-preview', 'aria-label': 'Webcam preview', muted: true, playsinline: true });
    this.timer = h('span', { class: 'recorder-timer', role: 'timer', 'aria-label': 'Recording time', text: `0:00 / ${clock(this.maxMs)}` });
    this.bar = h('progress', { class: 'recorder-bar', max: String(this.maxMs), value: '0', 'aria-label': 'Recording length used' });
    this.status = h('p', { class: 'recorder-status', 'aria-live': 'polite', text: `Ready. Recordings stop by themselves after ${this.maxMs / 1000} s.` });
    this.startButton = button('Start recording', () => this.start(), { class: 'primary' });
    this.stopButton = button('Stop recording', () => this.stop(), { class: 'primary' });
    this.stopButton.hidden = true;
    this.closeButton = button('Close camera', () => this.close());
    this.element = h(
      'div',
      { class: 'recorder', dataset: { state: 'closed' } },
      h('div', { class: 'recorder-stage' }, this.preview, h('span', { class: 'recorder-badge', 'aria-hidden': 'true', text: 'REC' })),
      h('div', { class: 'row recorder-meter' }, this.timer, this.bar),
      this.status,
      h('div', { class: 'row' }, this.startButton, this.stopButton, this.closeButton),
    );
    this.element.hidden = true;
    // leaving the screen stops the camera: a recording in progress is dropped
    options.camera.onStop(() => {
      if (this.recorder?.state === 'recording') {
        this.discard = true;
        this.recorder.stop();
      }
      if (!this.opening) this.reset();
    });
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** Opens the box and starts the webcam preview. */
  async open(): Promise<void> {
    if (typeof MediaRecorder === 'undefined' || !recordingType()) {
      this.options.onProblem('This browser cannot record video here (no MediaRecorder). Upload a video file instead.');
      return;
    }
    this.element.hidden = false;
    this.element.dataset.state = 'starting';
    this.options.onOpenChange?.(true);
    this.opening = true;
    try {
      await this.options.camera.start(this.preview);
    } catch (e) {
      this.reset();
      this.options.onProblem(cameraProblem(e));
      return;
    } finally {
      this.opening = false;
    }
    this.element.dataset.state = 'ready';
    this.startButton.focus();
  }

  start(): void {
    const stream = this.options.camera.mediaStream;
    const mimeType = recordingType();
    if (!stream || !mimeType) {
      this.options.onProblem('The webcam is not running: open it again.');
      return;
    }
    const recorder = new MediaRecorder(stream, { mimeType, videoBitsPerSecond: 2_500_000 });
    this.recorder = recorder;
    this.chunks = [];
    this.discard = false;
    recorder.addEventListener('dataavailable', (e) => {
      if (e.data.size > 0) this.chunks.push(e.data);
    });
    recorder.addEventListener('stop', () => this.finish(recorder, mimeType));
    recorder.start(250);
    this.started = performance.now();
    this.element.dataset.state = 'recording';
    this.startButton.hidden = true;
    this.stopButton.hidden = false;
    this.stopButton.focus();
    this.status.textContent = 'Recording… press Stop recording when done.';
    const render = () => {
      const ms = Math.min(this.maxMs, performance.now() - this.started);
      this.timer.textContent = `${clock(ms)} / ${clock(this.maxMs)}`;
      this.bar.value = ms;
    };
    render();
    this.tick = setInterval(render, 200);
    this.limit = setTimeout(() => this.stop(), this.maxMs);
  }

  stop(): void {
    if (this.recorder?.state === 'recording') this.recorder.stop();
  }

  /** Closes the box and releases the webcam (a recording in progress is dropped). */
  close(): void {
    if (this.recorder?.state === 'recording') {
      this.discard = true;
      this.recorder.stop();
    }
    this.options.camera.stop();
    this.reset();
  }

  private finish(recorder: MediaRecorder, mimeType: string): void {
    this.clearTimers();
    const elapsed = performance.now() - this.started;
    const blob = new Blob(this.chunks, { type: mimeType.split(';')[0] });
    this.chunks = [];
    if (this.recorder === recorder) this.recorder = undefined;
    const dropped = this.discard;
    this.options.camera.stop();
    this.reset();
    if (dropped) return;
    if (blob.size === 0 || elapsed < 300) {
      this.options.onProblem('The recording is empty: record for at least a second.');
      return;
    }
    const stamp = new Date().toISOString().slice(11, 19).replaceAll(':', '');
    const ext = blob.type.includes('mp4') ? 'mp4' : 'webm';
    this.options.onRecording(new File([blob], `webcam-${stamp}.${ext}`, { type: blob.type }));
  }

  private clearTimers(): void {
    if (this.tick !== undefined) clearInterval(this.tick);
    if (this.limit !== undefined) clearTimeout(this.limit);
    this.tick = this.limit = undefined;
  }

  private reset(): void {
    this.clearTimers();
    const wasOpen = !this.element.hidden;
    this.element.hidden = true;
    this.element.dataset.state = 'closed';
    this.startButton.hidden = false;
    this.stopButton.hidden = true;
    this.timer.textContent = `0:00 / ${clock(this.maxMs)}`;
    this.bar.value = 0;
    this.status.textContent = `Ready. Recordings stop by themselves after ${this.maxMs / 1000} s.`;
    if (wasOpen) this.options.onOpenChange?.(false);
  }
}
