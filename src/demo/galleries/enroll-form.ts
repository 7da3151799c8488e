// Enroll: a subject name and several photos or webcam shots into a gallery (created by the
// first enroll). One POST /enroll per photo; each result says whether the shot was good
// enough, with a hint when its quality is poor.
import type { EnrollResponse } from '../../index.ts';
import type { ApiClient } from '../ui/api-client.ts';
import { errorOf } from '../ui/api-client.ts';
import type { Camera } from '../ui/camera.ts';
import { button, field, h, uid } from '../ui/dom.ts';
import { describeError } from '../ui/messages.ts';
import { Notice } from '../ui/notice.ts';
import { photoPicker } from '../ui/photo-picker.ts';
import type { GalleryDirectory } from './directory.ts';

/** Below this /enroll quality (docs/detection.md formula) a shot is blurred, dark or turned away. */
export const POOR_QUALITY = 0.6;
/** Faces narrower than this (photo pixels) carry little detail for the recogniser's 150 px crop. */
export const SMALL_FACE_PX = 80;

/** Why an enrolled shot will recognise less reliably, or undefined when it is a good shot. */
export function qualityHint(t: { quality: number; width: number }): string | undefined {
  const reasons: string[] = [];
  if (t.width < SMALL_FACE_PX) reasons.push(`the face is only ${t.width} px wide (move closer or use a larger photo)`);
  if (t.quality < POOR_QUALITY) reasons.push('it looks blurred, dark or turned away (face the camera in good light)');
  return reasons.length ? `This shot is poor: ${reasons.join('; ')}. It was enrolled, but better shots recognise more reliably.` : undefined;
}

export function enrollForm(api: ApiClient, camera: Camera, directory: GalleryDirectory, onEnrolled: (gallery: string, subject: string) => void): HTMLElement {
  const notice = new Notice();
  const listId = uid('galleries');
  const gallery = h('input', { type: 'text', name: 'gallery_name', list: listId, autocomplete: 'off', required: true, placeholder: 'e.g. family' });
  const datalist = h('datalist', { id: listId });
  directory.subscribe((names) => datalist.replaceChildren(...names.map((n) => h('option', { value: n }))));
  const subject = h('input', { type: 'text', name: 'subject_id', autocomplete: 'off', required: true, placeholder: 'e.g. Ada Lovelace' });
  const keepPhotos = h('input', { type: 'checkbox', checked: true });
  const pending: File[] = [];
  const pendingList = h('ul', { class: 'pending', 'aria-label': 'Photos to enroll' });
  const results = h('ul', { class: 'results', 'aria-label': 'Enroll results' });
  const submit = h('button', { type: 'submit', class: 'primary', disabled: true, text: 'Enroll' });

  const renderPending = () => {
    pendingList.replaceChildren(
      ...pending.map((file, i) => {
        const url = URL.createObjectURL(file);
        const img = h('img', { src: url, alt: file.name, width: '64', height: '64' });
        img.addEventListener('load', () => URL.revokeObjectURL(url), { once: true });
        return h('li', {}, img, h('span', { text: file.name }), button('Remove', () => {
          pending.splice(i, 1);
          renderPending();
        }, { 'aria-label': `Remove ${file.name}` }));
      }),
    );
    submit.disabled = pending.length === 0;
    submit.textContent = pending.length > 1 ? `Enroll ${pending.length} photos` : 'Enroll';
  };

  const picker = photoPicker({
    label: 'Photos of the person',
    multiple: true,
    camera,
    onPhotos: (files) => {
      pending.push(...files);
      renderPending();
    },
    onProblem: (message) => notice.show('error', message),
  });

  const enroll = async () => {
    const galleryName = gallery.value.trim();
    const subjectId = subject.value.trim();
    if (!galleryName || !subjectId) {
      notice.show('error', !galleryName ? 'Give the gallery a name.' : 'Give the person a name (the subject id).');
      (!galleryName ? gallery : subject).focus();
      return;
    }
    const photos = pending.splice(0);
    renderPending();
    results.replaceChildren();
    let enrolled = 0;
    await notice.busy('Enrolling', async (report) => {
      for (const [i, photo] of photos.entries()) {
        report(i / photos.length, `Enrolling photo ${i + 1} of ${photos.length}`);
        const { body } = await api.post<EnrollResponse>('/enroll', { image: photo, subject_id: subjectId, gallery_name: galleryName }, keepPhotos.checked ? {} : { store_image: 'false' });
        const error = errorOf(body);
        const item = h('li', { dataset: { photo: photo.name } });
        if (error) {
          item.className = 'failed';
          item.append(h('strong', { text: photo.name }), ` not enrolled: ${describeError(error)}`);
        } else {
          enrolled += 1;
          const transaction = (body as EnrollResponse).images[0]!.transaction;
          const quality = transaction.quality;
          const hint = qualityHint(transaction);
          item.className = hint ? 'poor' : 'ok';
          item.append(h('strong', { text: photo.name }), ` enrolled (quality ${quality.toFixed(2)}).`);
          if (hint) item.append(h('span', { class: 'quality-hint', text: ` ${hint}` }));
        }
        results.append(item);
      }
    });
    if (enrolled > 0) {
      notice.show('success', `${subjectId} now has ${enrolled} new template${enrolled === 1 ? '' : 's'} in ${galleryName}.`);
      await directory.refresh();
      onEnrolled(galleryName, subjectId);
    } else notice.show('error', 'Nothing was enrolled: see why below each photo.');
  };

  const form = h(
    'form',
    { class: 'card enroll', 'aria-labelledby': 'enroll-heading', novalidate: true },
    h('h3', { id: 'enroll-heading', text: 'Enroll a person' }),
    h('div', { class: 'row fields' }, field('Gallery', gallery, 'new name creates a gallery'), datalist, field('Person (subject id)', subject)),
    picker,
    pendingList,
    h('label', {}, keepPhotos, ' Keep the photos in this browser (thumbnails; off = store_image: false)'),
    h('div', { class: 'row' }, submit),
    notice.element,
    results,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    enroll().catch((err: unknown) => notice.show('error', `Something went wrong: ${err instanceof Error ? err.message : String(err)}`));
  });
  return form;
}
