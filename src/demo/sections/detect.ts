// Detect & analyse: a photo (dropped, picked, pasted or from the webcam) goes to POST /detect
// for faces and attributes and, for the emotions and the 49 landmarks, to POST /v2/media
// with landmarks=1 (its record is deleted once read). Faces of the two answers are paired
// by box overlap.
import type { DetectFace, DetectResponse } from '../../index.ts';
import type { ApiClient } from '../ui/api-client.ts';
import { errorOf } from '../ui/api-client.ts';
import type { Camera } from '../ui/camera.ts';
import { h } from '../ui/dom.ts';
import { faceCard, type Emotions } from '../ui/face-card.ts';
import { describeError } from '../ui/messages.ts';
import { Notice } from '../ui/notice.ts';
import { drawPhoto, iou, type FaceMark } from '../ui/overlay.ts';
import { photoPicker } from '../ui/photo-picker.ts';

interface MediaPerson {
  face: { x: number; y: number; width: number; height: number };
  emotions: Emotions;
  landmarks?: Record<string, { x: number; y: number }>[];
}
interface MediaBody {
  id?: string;
  status_code?: number;
  frames?: { people: MediaPerson[] }[];
}

const boxOf = (f: DetectFace) => ({ x: f.topLeftX, y: f.topLeftY, width: f.width, height: f.height });

/** The media person whose face overlaps `face` best (at least half-way), if any. */
function personFor(face: DetectFace, people: readonly MediaPerson[]): MediaPerson | undefined {
  let best: MediaPerson | undefined;
  let bestOverlap = 0.3;
  for (const p of people) {
    const overlap = iou(boxOf(face), p.face);
    if (overlap > bestOverlap) [best, bestOverlap] = [p, overlap];
  }
  return best;
}

export function mountDetect(panel: HTMLElement, api: ApiClient, camera: Camera): void {
  const notice = new Notice();
  const option = (label: string, checked: boolean, hint: string) => {
    const input = h('input', { type: 'checkbox', checked });
    return { input, label: h('label', { title: hint }, input, ` ${label}`) };
  };
  const liveness = option('Liveness', false, 'adds the liveness attribute (selector liveness)');
  const roll = option('Rotated faces', false, 'also searches faces rotated up to ±60° (selector ROLL)');
  const emotions = option('Emotions', true, 'also asks /v2/media for the six emotions');
  const landmarks = option('Show landmarks', true, 'draws the 49 named landmarks');
  const canvas = h('canvas', { class: 'photo', role: 'img', 'aria-label': 'The photo with the faces found' });
  const cards = h('ol', { class: 'face-cards', 'aria-label': 'Faces found' });
  const summary = h('p', { class: 'summary', role: 'status' });
  const result = h('div', { class: 'result' }, h('div', { class: 'stage' }, canvas), h('div', {}, summary, cards));
  result.hidden = true;

  let last: { photo: File; marks: FaceMark[] } | undefined;
  const redraw = () => {
    if (last) void drawPhoto(canvas, last.photo, last.marks, { showLandmarks: landmarks.input.checked });
  };
  landmarks.input.addEventListener('change', redraw);

  const analyse = async (photo: File) => {
    notice.clear();
    const selector = [roll.input.checked ? 'ROLL' : 'FRONTAL', liveness.input.checked ? 'liveness' : ''].filter(Boolean).join(',');
    const detected = await notice.busy('Finding faces', () => api.post<DetectResponse>('/detect', { image: photo, selector }));
    const error = errorOf(detected.body);
    if (error) {
      result.hidden = true;
      notice.show(error.code === 5002 ? 'warning' : 'error', describeError(error));
      return;
    }
    const faces = (detected.body as DetectResponse).images[0]!.faces;
    let people: MediaPerson[] = [];
    if (emotions.input.checked) {
      const media = await notice.busy('Reading emotions', () => api.post<MediaBody>('/v2/media', { source: photo, landmarks: 1, timeout: 60 }));
      people = media.body.frames?.[0]?.people ?? [];
      if (media.body.id) await api.request('DELETE', `/v2/media/${encodeURIComponent(media.body.id)}`);
    }
    const matched = faces.map((f) => personFor(f, people));
    const marks: FaceMark[] = faces.map((f, i) => ({
      box: boxOf(f),
      label: String(f.face_id),
      points: [[f.leftEyeCenterX, f.leftEyeCenterY], [f.rightEyeCenterX, f.rightEyeCenterY], [f.chinTipX, f.chinTipY]],
      landmarks: matched[i]?.landmarks?.map((l) => Object.values(l)[0]!).map((p) => [p.x, p.y] as const),
    }));
    last = { photo, marks };
    await drawPhoto(canvas, photo, marks, { showLandmarks: landmarks.input.checked });
    canvas.setAttribute('aria-label', `${photo.name} with ${faces.length} face${faces.length === 1 ? '' : 's'} marked`);
    summary.textContent = `${faces.length} face${faces.length === 1 ? '' : 's'} found in ${photo.name}.`;
    cards.replaceChildren(...faces.map((f, i) => faceCard(f, matched[i]?.emotions)));
    result.hidden = false;
  };

  const picker = photoPicker({
    label: 'Photo to analyse',
    camera,
    onPhotos: ([photo]) => {
      if (photo) analyse(photo).catch((e: unknown) => notice.show('error', `Something went wrong: ${e instanceof Error ? e.message : String(e)}`));
    },
    onProblem: (message) => notice.show('error', message),
  });

  panel.append(
    h('h2', { text: 'Detect & analyse' }),
    h('p', { class: 'lead', text: 'Find every face in a photo with its age, gender, ethnicity, pose, quality, liveness and emotions.' }),
    picker,
    h('fieldset', { class: 'options' }, h('legend', { text: 'Options' }), liveness.label, roll.label, emotions.label, landmarks.label),
    notice.element,
    result,
  );
}
