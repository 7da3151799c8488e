// Galleries: enroll people, browse and prune what is stored, verify and recognise, move a
// gallery between browsers as a file.
import type { Engine } from '../../index.ts';
import { GalleryDirectory } from '../galleries/directory.ts';
import { enrollForm } from '../galleries/enroll-form.ts';
import { galleryBrowser } from '../galleries/gallery-browser.ts';
import { recognizePanel } from '../galleries/recognize-panel.ts';
import { verifyForm } from '../galleries/verify-form.ts';
import type { ApiClient } from '../ui/api-client.ts';
import type { Camera } from '../ui/camera.ts';
import { h } from '../ui/dom.ts';

export function mountGalleries(panel: HTMLElement, engine: Engine, api: ApiClient, camera: Camera): void {
  const directory = new GalleryDirectory(api);
  const browser = galleryBrowser(engine, api, directory);
  const enroll = enrollForm(api, camera, directory, (gallery, subject) => void browser.showSubject(gallery, subject));
  panel.append(
    h('h2', { text: 'Galleries' }),
    h('p', { class: 'lead', text: 'Enroll people with a few photos, then verify or recognise them. Galleries stay in this browser; export one to use it in another.' }),
    h('div', { class: 'two-columns' }, enroll, browser.element),
    h('div', { class: 'two-columns' }, verifyForm(api, camera, directory), recognizePanel(engine, api, camera, directory)),
  );
}
