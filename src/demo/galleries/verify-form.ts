// Verify: is the person in this photo the enrolled subject? POST /verify; the confidence is
// calibrated so 0.6 is the same-person decision point (0.1 % false accepts, docs/recognition.md).
import type { VerifyResponse } from '../../index.ts';
import type { ApiClient } from '../ui/api-client.ts';
import { errorOf } from '../ui/api-client.ts';
import type { Camera } from '../ui/camera.ts';
import { field, h } from '../ui/dom.ts';
import { describeError } from '../ui/messages.ts';
import { Notice } from '../ui/notice.ts';
import { drawPhoto } from '../ui/overlay.ts';
import { photoPicker } from '../ui/photo-picker.ts';
import { fillSelect, type GalleryDirectory } from './directory.ts';

/** The recognize endpoint's default threshold: the same calibrated decision point. */
export const SAME_PERSON = 0.6;

export function verifyForm(api: ApiClient, camera: Camera, directory: GalleryDirectory): HTMLElement {
  const notice = new Notice();
  const gallery = h('select', { name: 'gallery_name' });
  const subject = h('select', { name: 'subject_id', disabled: true });
  directory.subscribe((names) => fillSelect(gallery, names, 'choose a gallery'));
  gallery.addEventListener('change', async () => {
    subject.disabled = !gallery.value;
    fillSelect(subject, gallery.value ? await directory.subjects(gallery.value) : [], 'choose a person');
  });
  const canvas = h('canvas', { class: 'photo small', role: 'img', 'aria-label': 'The photo being verified' });
  const verdict = h('p', { class: 'verdict', role: 'status' });
  const result = h('div', { class: 'verify-result' }, canvas, verdict);
  result.hidden = true;

  const verify = async (photo: File) => {
    notice.clear();
    if (!gallery.value || !subject.value) return notice.show('error', 'Choose a gallery and a person first.');
    const { body } = await notice.busy('Verifying', () => api.post<VerifyResponse>('/verify', { image: photo, gallery_name: gallery.value, subject_id: subject.value }));
    const error = errorOf(body);
    if (error) {
      result.hidden = true;
      return notice.show(error.code === 5002 ? 'warning' : 'error', describeError(error));
    }
    const t = (body as VerifyResponse).images[0]!.transaction;
    const same = t.confidence >= SAME_PERSON;
    await drawPhoto(canvas, photo, [{ box: { x: t.topLeftX, y: t.topLeftY, width: t.width, height: t.height }, label: same ? t.subject_id : '?', color: same ? '#1f8a4c' : '#b4461b' }]);
    verdict.className = `verdict ${same ? 'match' : 'no-match'}`;
    verdict.textContent = same
      ? `Same person: this is ${t.subject_id} (confidence ${t.confidence.toFixed(2)}).`
      : `Not ${t.subject_id} (confidence ${t.confidence.toFixed(2)}; the same person scores ${SAME_PERSON} or more).`;
    result.hidden = false;
  };

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'verify-heading' },
    h('h3', { id: 'verify-heading', text: 'Verify a photo against a person' }),
    h('div', { class: 'row fields' }, field('Gallery', gallery), field('Person', subject)),
    photoPicker({
      label: 'Photo to verify',
      camera,
      onPhotos: ([photo]) => void (photo && verify(photo).catch((e: unknown) => notice.show('error', String(e)))),
      onProblem: (m) => notice.show('error', m),
    }),
    notice.element,
    result,
  );
}
