// Live: the webcam through engine.watch(): every face followed with its track, the six
// emotions drawn as bars beside it and, with a gallery chosen, the person's name; the
// measured results per second, latency and dropped frames are shown as they happen.
import type { Engine, LiveFace, LiveFrame, LiveWatch } from '../../index.ts';
import { EMOTIONS, EMOTION_STYLE } from '../emotion/emotions.ts';
import { fillSelect, GalleryDirectory } from '../galleries/directory.ts';
import type { ApiClient } from '../ui/api-client.ts';
import type { Camera } from '../ui/camera.ts';
import { button, field, h } from '../ui/dom.ts';
import { describeCameraError } from '../ui/messages.ts';
import { Notice } from '../ui/notice.ts';
import { drawMarks, MARK_COLORS } from '../ui/overlay.ts';

/** What a face is called on screen: its name with a gallery, else its track. */
export function faceLabel(face: LiveFace, withGallery: boolean): string {
  if (!withGallery) return `#${face.track_id}`;
  return face.subject ? `${face.subject.subject_id} ${face.subject.confidence.toFixed(2)}` : 'unknown';
}

/** The six emotions as small bars to the right of the face box (image pixels). */
function drawEmotionBars(ctx: CanvasRenderingContext2D, face: LiveFace): void {
  if (!face.emotions) return;
  const size = Math.max(ctx.canvas.width, ctx.canvas.height);
  const row = Math.max(10, Math.round(size / 55));
  const width = row * 6;
  const x = Math.min(face.box.x + face.box.width + 4, ctx.canvas.width - width - row * 4.5);
  let y = Math.max(0, face.box.y);
  ctx.font = `600 ${Math.round(row * 0.8)}px system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  for (const name of EMOTIONS) {
    const v = face.emotions[name];
    ctx.fillStyle = 'rgba(0,0,0,0.55)';
    ctx.fillRect(x, y, width + row * 4.5, row);
    ctx.fillStyle = EMOTION_STYLE[name].color;
    ctx.fillRect(x + row * 4.5, y + 2, (width * v) / 100, row - 4);
    ctx.fillStyle = '#fff';
    ctx.fillText(EMOTION_STYLE[name].label.slice(0, 4), x + 2, y + row / 2);
    y += row;
  }
}

export function mountLive(panel: HTMLElement, engine: Engine, api: ApiClient, camera: Camera): { refresh(): void } {
  const notice = new Notice();
  const directory = new GalleryDirectory(api);
  const gallery = h('select', { name: 'gallery_name' });
  directory.subscribe((names) => fillSelect(gallery, names, 'nobody (emotions only)'));
  const analyses = h(
    'select',
    { name: 'analyses' },
    h('option', { value: 'boxes', text: 'faces only' }),
    h('option', { value: 'emotion', text: 'faces + emotions', selected: true }),
  );
  const maxFaces = h('input', { type: 'number', name: 'max_faces', min: '1', max: '10', value: '3' });
  const targetFps = h('input', { type: 'number', name: 'target_fps', min: '1', max: '60', value: '30' });

  const video = h('video', { class: 'live-video', muted: true, playsinline: true, 'aria-label': 'Webcam' });
  const overlay = h('canvas', { class: 'live-overlay', 'aria-hidden': 'true' });
  const rate = h('p', { class: 'live-rate', role: 'status', 'aria-live': 'off' });
  const faces = h('ul', { class: 'live-faces', 'aria-label': 'Faces in view' });
  const stage = h('div', { class: 'live' }, h('div', { class: 'live-stage' }, video, overlay), rate, faces);
  stage.hidden = true;

  let running: LiveWatch | undefined;
  const draw = (frame: LiveFrame, withGallery: boolean) => {
    overlay.width = frame.width;
    overlay.height = frame.height;
    const ctx = overlay.getContext('2d')!;
    ctx.clearRect(0, 0, overlay.width, overlay.height);
    drawMarks(
      ctx,
      frame.faces.map((f) => ({
        box: f.box,
        label: faceLabel(f, withGallery),
        color: !withGallery ? MARK_COLORS.face : f.subject ? MARK_COLORS.known : MARK_COLORS.unknown,
      })),
    );
    for (const f of frame.faces) drawEmotionBars(ctx, f);
    rate.textContent = `${frame.fps} results/s · latency ${Math.round(frame.latency_ms)} ms · ${frame.dropped} frames dropped`;
    rate.dataset.fps = String(frame.fps);
    faces.replaceChildren(
      ...frame.faces.map((f) => {
        const who = withGallery ? (f.subject ? f.subject.subject_id : 'someone not in the gallery') : `Face #${f.track_id}`;
        const feelings = f.emotions ? EMOTIONS.map((e) => `${EMOTION_STYLE[e].label} ${Math.round(f.emotions![e])}`).join(' · ') : '';
        return h('li', { dataset: { track: f.track_id } }, h('strong', { class: 'live-who', text: who }), feelings ? ` — ${feelings}` : '');
      }),
    );
    if (frame.faces.length === 0) faces.replaceChildren(h('li', { text: 'No face in view.' }));
  };

  const stop = async () => {
    const was = running;
    running = undefined;
    toggle.textContent = 'Start live view';
    stage.hidden = true;
    await was?.stop();
  };
  camera.onStop(() => void stop());

  const toggle = button('Start live view', () => {
    if (running) {
      camera.stop();
      return void stop();
    }
    notice.clear();
    stage.hidden = false;
    camera.start(video).then(
      () => {
        const withGallery = gallery.value !== '';
        running = engine.watch(video, {
          galleryName: withGallery ? gallery.value : undefined,
          analyses: analyses.value as 'boxes' | 'emotion',
          maxFaces: Number(maxFaces.value) || 3,
          targetFps: Number(targetFps.value) || 30,
          onFrame: (frame) => draw(frame, withGallery),
        });
        toggle.textContent = 'Stop live view';
        const current = running;
        current.done.catch((e: unknown) => {
          if (running === current) void stop();
          notice.show('error', e instanceof Error ? e.message : String(e));
        });
      },
      (e: unknown) => {
        stage.hidden = true;
        notice.show('error', describeCameraError(e));
      },
    );
  });

  panel.append(
    h('h2', { text: 'Live' }),
    h('p', {
      class: 'lead',
      text: 'Faces in front of the webcam, followed frame by frame: the six emotions beside each face and, with a gallery chosen, who it is. Nothing leaves this device.',
    }),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'live-heading' },
      h('h3', { id: 'live-heading', text: 'Live view' }),
      h('div', { class: 'row fields' }, field('Recognise people of', gallery), field('Show', analyses), field('Faces at most', maxFaces), field('Frames per second at most', targetFps), toggle),
      notice.element,
      stage,
    ),
  );
  return { refresh: () => void directory.refresh() };
}
