// Browse galleries → subjects → templates (with thumbnails when photos were stored), remove
// any of them after confirmation, and move a gallery between browsers as a JSON file
// (export/import with the embeddings).
import type { Engine } from '../../index.ts';
import type { ApiClient } from '../ui/api-client.ts';
import { errorOf } from '../ui/api-client.ts';
import { confirmAction } from '../ui/confirm.ts';
import { button, h, uid } from '../ui/dom.ts';
import { describeError } from '../ui/messages.ts';
import { Notice } from '../ui/notice.ts';
import type { GalleryDirectory } from './directory.ts';
import { faceThumbnail } from './thumbnail.ts';

type View = { level: 'galleries' } | { level: 'gallery'; gallery: string } | { level: 'subject'; gallery: string; subject: string };

/** A file name made of the gallery name's safe characters. */
export function exportFileName(gallery: string): string {
  const safe = gallery.normalize('NFKD').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return `gallery-${safe || 'export'}.json`;
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export interface GalleryBrowser {
  element: HTMLElement;
  /** shows a subject (after an enroll) */
  showSubject(gallery: string, subject: string): Promise<void>;
}

export function galleryBrowser(engine: Engine, api: ApiClient, directory: GalleryDirectory): GalleryBrowser {
  const notice = new Notice();
  const crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Where you are in your galleries' });
  const body = h('div', { class: 'browser-body' });
  const headingId = uid('browse');
  let view: View = { level: 'galleries' };

  const crumb = (label: string, target: View | null) =>
    target ? button(label, () => void go(target), { class: 'link' }) : h('span', { 'aria-current': 'location', text: label });

  const renderCrumbs = () => {
    const parts: HTMLElement[] = [crumb('All galleries', view.level === 'galleries' ? null : { level: 'galleries' })];
    if (view.level !== 'galleries') parts.push(crumb(view.gallery, view.level === 'gallery' ? null : { level: 'gallery', gallery: view.gallery }));
    if (view.level === 'subject') parts.push(crumb(view.subject, null));
    crumbs.replaceChildren(...parts.flatMap((p, i) => (i === 0 ? [p] : [h('span', { 'aria-hidden': 'true', text: ' › ' }), p])));
  };

  const showGalleries = async () => {
    const names = await directory.refresh();
    if (names.length === 0) {
      body.replaceChildren(h('p', { class: 'hint', text: 'No galleries yet: enroll a person, or import a gallery file.' }));
      return;
    }
    body.replaceChildren(
      h('ul', { class: 'tiles', 'aria-label': 'Galleries' }, ...names.map((name) => h('li', {}, button(name, () => void go({ level: 'gallery', gallery: name }), { class: 'tile', dataset: { gallery: name } })))),
    );
  };

  const showGallery = async (gallery: string) => {
    const subjects = await directory.subjects(gallery);
    if (subjects.length === 0) return go({ level: 'galleries' });
    const exportIt = async () => {
      const file = await api.typed('engine.exportGallery', { gallery_name: gallery, include_images: true }, () => engine.exportGallery({ gallery_name: gallery, include_images: true }));
      const error = errorOf(file);
      if (error) return notice.show('error', describeError(error));
      download(new Blob([JSON.stringify(file)], { type: 'application/json' }), exportFileName(gallery));
      notice.show('success', `Exported ${gallery} as ${exportFileName(gallery)}: import it in another browser to recognise the same people there.`);
    };
    const removeIt = async () => {
      if (!(await confirmAction(`Remove the gallery "${gallery}" with its ${subjects.length} people and all their templates and photos? This cannot be undone.`, 'Remove gallery'))) return;
      const { body: answer } = await api.post('/gallery/remove', { gallery_name: gallery });
      const error = errorOf(answer);
      if (error) return notice.show('error', describeError(error));
      notice.show('success', `Gallery ${gallery} removed.`);
      await go({ level: 'galleries' });
    };
    body.replaceChildren(
      h('div', { class: 'row' }, button('Export gallery file', () => void exportIt()), button('Remove gallery…', () => void removeIt(), { class: 'danger' })),
      h('p', { class: 'hint', text: `${subjects.length} ${subjects.length === 1 ? 'person' : 'people'}` }),
      h('ul', { class: 'tiles', 'aria-label': `People in ${gallery}` }, ...subjects.map((s) => h('li', {}, button(s, () => void go({ level: 'subject', gallery, subject: s }), { class: 'tile', dataset: { subject: s } })))),
    );
  };

  const showSubject = async (gallery: string, subject: string) => {
    // the interface's own listing (shown in the developer panel) …
    await api.post('/gallery/view_subject', { gallery_name: gallery, subject_id: subject });
    // … and the details it has no field for: quality, whether a photo is kept
    const templates = await engine.subjectTemplates({ gallery_name: gallery, subject_id: subject });
    const error = errorOf(templates);
    if (error || !Array.isArray(templates)) return go({ level: 'gallery', gallery });
    const tiles = await Promise.all(
      templates.map(async (t, i) => {
        const stored = t.has_image ? await engine.templateImage({ gallery_name: gallery, subject_id: subject, face_id: t.face_id }) : null;
        const photo = stored && !errorOf(stored) ? (stored as { image: Blob; box: { topLeftX: number; topLeftY: number; width: number; height: number } }) : null;
        const thumb = await faceThumbnail(photo?.image ?? null, photo?.box ?? null, `${subject}, template ${i + 1}`);
        const when = new Date(Number(t.enrollment_timestamp));
        const removeIt = async () => {
          const last = templates.length === 1;
          const question = last
            ? `Remove the only template of "${subject}"? ${subject} will be removed from ${gallery}.`
            : `Remove this template of "${subject}"?`;
          if (!(await confirmAction(question, 'Remove template'))) return;
          const { body: answer } = await api.post('/gallery/remove_subject', { gallery_name: gallery, subject_id: subject, face_id: t.face_id });
          const err = errorOf(answer);
          if (err) return notice.show('error', describeError(err));
          notice.show('success', 'Template removed.');
          await go(last ? { level: 'gallery', gallery } : { level: 'subject', gallery, subject });
        };
        return h(
          'li',
          { class: 'template', dataset: { faceId: t.face_id } },
          thumb,
          h('span', { class: 'hint', text: `quality ${t.quality.toFixed(2)}` }),
          h('time', { datetime: when.toISOString(), class: 'hint', text: when.toLocaleString() }),
          button('Remove', () => void removeIt(), { class: 'danger small', 'aria-label': `Remove template ${i + 1} of ${subject}` }),
        );
      }),
    );
    const removeSubject = async () => {
      if (!(await confirmAction(`Remove "${subject}" and all ${templates.length} of their templates from ${gallery}?`, 'Remove person'))) return;
      const { body: answer } = await api.post('/gallery/remove_subject', { gallery_name: gallery, subject_id: subject });
      const err = errorOf(answer);
      if (err) return notice.show('error', describeError(err));
      notice.show('success', `${subject} removed from ${gallery}.`);
      await go({ level: 'gallery', gallery });
    };
    body.replaceChildren(
      h('div', { class: 'row' }, button('Remove person…', () => void removeSubject(), { class: 'danger' })),
      h('p', { class: 'hint', text: `${templates.length} template${templates.length === 1 ? '' : 's'}` }),
      h('ul', { class: 'templates', 'aria-label': `Templates of ${subject}` }, ...tiles),
    );
  };

  async function go(next: View): Promise<void> {
    view = next;
    renderCrumbs();
    try {
      if (next.level === 'galleries') await showGalleries();
      else if (next.level === 'gallery') await showGallery(next.gallery);
      else await showSubject(next.gallery, next.subject);
    } catch (e) {
      notice.show('error', `Something went wrong: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  const importInput = h('input', { type: 'file', accept: 'application/json,.json', class: 'visually-hidden', tabindex: '-1', 'aria-label': 'Choose a gallery file to import' });
  importInput.addEventListener('change', () => {
    const file = importInput.files?.[0];
    importInput.value = '';
    if (!file) return;
    void notice
      .busy('Importing', () => api.typed('engine.importGallery', { file }, () => engine.importGallery({ file })))
      .then(async (answer) => {
        const error = errorOf(answer);
        if (error) return notice.show('error', `${file.name} was not imported: ${describeError(error)}. Nothing was changed.`);
        const ok = answer as { gallery_name: string; subject_ids: string[]; templates: number };
        notice.show('success', `Imported ${ok.templates} templates of ${ok.subject_ids.length} people into ${ok.gallery_name}.`);
        await directory.refresh();
        await go({ level: 'gallery', gallery: ok.gallery_name });
      });
  });

  const element = h(
    'section',
    { class: 'card browser', 'aria-labelledby': headingId },
    h('div', { class: 'row spread' }, h('h3', { id: headingId, text: 'Your galleries' }), button('Import gallery file…', () => importInput.click()), importInput),
    crumbs,
    notice.element,
    body,
  );
  void go(view);
  return { element, showSubject: (gallery, subject) => go({ level: 'subject', gallery, subject }) };
}
