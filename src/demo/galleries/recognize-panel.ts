// Recognise: who is in this photo, or live in front of the webcam? POST /recognize against a
// gallery; names (or "unknown") drawn on the faces.
import type { Engine, LiveWatch, RecognizeResponse } from '../../index.ts';
import type { ApiClient } from '../ui/api-client.ts';
import { errorOf } from '../ui/api-client.ts';
import type { Camera } from '../ui/camera.ts';
import { button, field, h } from '../ui/dom.ts';
import { describeCameraError, describeError } from '../ui/messages.ts';
import { Notice } from '../ui/notice.ts';
import { drawMarks, drawPhoto, MARK_COLORS, type FaceMark } from '../ui/overlay.ts';
import { photoPicker } from '../ui/photo-picker.ts';
import { fillSelect, type GalleryDirectory } from './directory.ts';

/** Each face of a recognize answer as a mark: the best candidate's name, or "unknown". */
export function recognitionMarks(answer: RecognizeResponse): FaceMark[] {
  return answer.images.map(({ transaction: t }) => {
    const known = t.status === 'success' && t.subject_id !== undefined;
    return {
      box: { x: t.topLeftX, y: t.topLeftY, width: t.width, height: t.height },
      label: known ? `${t.subject_id} ${(t.confidence ?? 0).toFixed(2)}` : 'unknown',
      color: known ? MARK_COLORS.known : MARK_COLORS.unknown,
    };
  });
}

export function recognizePanel(engine: Engine, api: ApiClient, camera: Camera, directory: GalleryDirectory): HTMLElement {
  const notice = new Notice();
  const gallery = h('select', { name: 'gallery_name' });
  directory.subscribe((names) => fillSelect(gallery, names, 'choose a gallery'));
  const canvas = h('canvas', { class: 'photo', role: 'img', 'aria-label': 'The photo with names on the faces' });
  const names = h('ul', { class: 'names', 'aria-label': 'People recognised' });
  const photoResult = h('div', { class: 'recognize-result' }, canvas, names);
  photoResult.hidden = true;

  const listNames = (marks: FaceMark[]) =>
    names.replaceChildren(...marks.map((m, i) => h('li', { text: `Face ${i + 1}: ${m.label === 'unknown' ? 'not in the gallery' : m.label}` })));

  const recognizePhoto = async (photo: File) => {
    notice.clear();
    if (!gallery.value) return notice.show('error', 'Choose a gallery first.');
    const { body } = await notice.busy('Recognising', () => api.post<RecognizeResponse>('/recognize', { image: photo, gallery_name: gallery.value }));
    const error = errorOf(body);
    if (error) {
      photoResult.hidden = true;
      return notice.show(error.code === 5002 ? 'warning' : 'error', describeError(error));
    }
    const marks = recognitionMarks(body as RecognizeResponse);
    await drawPhoto(canvas, photo, marks);
    listNames(marks);
    photoResult.hidden = false;
  };

  // live: engine.watch() follows the faces and names each track (docs/live.md)
  const video = h('video', { class: 'live-video', muted: true, playsinline: true, 'aria-label': 'Webcam' });
  const overlay = h('canvas', { class: 'live-overlay', 'aria-hidden': 'true' });
  const liveNames = h('p', { class: 'live-names', role: 'status', 'aria-live': 'polite' });
  const live = h('div', { class: 'live' }, h('div', { class: 'live-stage' }, video, overlay), liveNames);
  live.hidden = true;
  let running: LiveWatch | undefined;
  const stopLive = () => {
    void running?.stop();
    running = undefined;
    live.hidden = true;
    toggle.textContent = 'Start live recognition';
  };
  camera.onStop(stopLive);
  const toggle = button('Start live recognition', () => {
    if (running) {
      camera.stop();
      return stopLive();
    }
    if (!gallery.value) return notice.show('error', 'Choose a gallery first.');
    notice.clear();
    live.hidden = false;
    camera.start(video).then(
      () => {
        running = engine.watch(video, {
          galleryName: gallery.value,
          onFrame: (frame) => {
            overlay.width = frame.width;
            overlay.height = frame.height;
            const ctx = overlay.getContext('2d')!;
            ctx.clearRect(0, 0, overlay.width, overlay.height);
            const marks: FaceMark[] = frame.faces.map((f) => ({
              box: f.box,
              label: f.subject ? `${f.subject.subject_id} ${f.subject.confidence.toFixed(2)}` : 'unknown',
              color: f.subject ? MARK_COLORS.known : MARK_COLORS.unknown,
            }));
            drawMarks(ctx, marks);
            liveNames.textContent =
              frame.faces.length === 0 ? 'No face in view.' : frame.faces.map((f) => (f.subject ? f.subject.subject_id : 'someone not in the gallery')).join(', ');
          },
        });
        toggle.textContent = 'Stop live recognition';
        const current = running;
        current.done.catch((e: unknown) => {
          if (running === current) stopLive();
          notice.show('error', e instanceof Error ? e.message : String(e));
        });
      },
      (e: unknown) => {
        live.hidden = true;
        notice.show('error', describeCameraError(e));
      },
    );
  });

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'recognize-heading' },
    h('h3', { id: 'recognize-heading', text: 'Recognise people' }),
    h('div', { class: 'row fields' }, field('Gallery', gallery), toggle),
    live,
    photoPicker({
      label: 'Photo to recognise',
      camera,
      onPhotos: ([photo]) => void (photo && recognizePhoto(photo).catch((e: unknown) => notice.show('error', String(e)))),
      onProblem: (m) => notice.show('error', m),
    }),
    notice.element,
    photoResult,
  );
}
