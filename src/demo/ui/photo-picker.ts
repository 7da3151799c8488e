// Where a photo comes from: drop, pick, paste or a webcam snapshot. Every route ends in
// onPhotos(files). A paste goes to one picker on screen: the one holding the focus, else the
// one used last, else the only one (Galleries shows three: enroll, verify, recognise).
import type { Camera } from './camera.ts';
import { button, h } from './dom.ts';
import { acceptFiles } from './file-drop.ts';
import { describeCameraError } from './messages.ts';

export interface PhotoPickerOptions {
  /** what the photo is for, e.g. "Photo to analyse" */
  label: string;
  multiple?: boolean;
  camera: Camera;
  onPhotos(files: File[]): void;
  /** camera problems and refused files */
  onProblem(message: string): void;
  /** accepted types; default every still format the engine reads */
  accept?: string;
}

const isVisible = (el: HTMLElement) => el.isConnected && el.offsetParent !== null;

interface PasteTarget {
  root: HTMLElement;
  take(files: File[]): void;
  problem(message: string): void;
  /** performance.now() of the last focus or pointer press inside; 0 = never used */
  usedAt: number;
}
const pasteTargets = new Set<PasteTarget>();

/** The visible picker a paste belongs to, if any (pure over the given state). */
export function pasteTargetOf<T extends { usedAt: number }>(visible: readonly T[], focused: T | undefined): T | undefined {
  if (focused) return focused;
  if (visible.length === 1) return visible[0];
  return visible.filter((t) => t.usedAt > 0).sort((a, b) => b.usedAt - a.usedAt)[0];
}

function routePaste(e: ClipboardEvent): void {
  const files = [...(e.clipboardData?.files ?? [])];
  if (files.length === 0) return;
  const visible = [...pasteTargets].filter((t) => isVisible(t.root));
  const target = pasteTargetOf(visible, visible.find((t) => t.root.contains(document.activeElement)));
  if (!target) {
    visible[0]?.problem('Several boxes on this screen take a photo: click the one you mean, then paste again.');
    return;
  }
  e.preventDefault();
  target.take(files);
}

export function photoPicker(options: PhotoPickerOptions): HTMLElement {
  const accept = options.accept ?? 'image/jpeg,image/png,image/webp,image/avif,image/gif,image/bmp';
  // named for assistive tech (a control without a name fails accessibility audits); not the
  // group's label, which tests and users find the picker by
  const input = h('input', { type: 'file', accept, multiple: options.multiple, class: 'visually-hidden', 'aria-label': options.multiple ? 'Choose photo files' : 'Choose a photo file' });
  const video = h('video', { class: 'camera-preview', 'aria-label': 'Webcam preview', muted: true, playsinline: true });
  const cameraBox = h('div', { class: 'camera-box' });
  cameraBox.hidden = true;

  // every file goes on, even an empty or broken one: the engine's error says what is wrong
  const take = (files: File[]) => {
    if (files.length > 0) options.onPhotos(options.multiple ? files : files.slice(0, 1));
  };

  const resetCamera = () => {
    cameraBox.hidden = true;
    openCamera.hidden = false;
  };
  options.camera.onStop(resetCamera);
  const closeCamera = () => {
    options.camera.stop();
    resetCamera();
    openCamera.focus();
  };
  const shoot = button('Take photo', () => {
    options.camera.snapshot().then((file) => take([file]), (e: unknown) => options.onProblem(String(e)));
  }, { class: 'primary' });
  cameraBox.append(video, h('div', { class: 'row' }, shoot, button('Close camera', closeCamera)));

  const openCamera = button('Use webcam', () => {
    cameraBox.hidden = false;
    openCamera.hidden = true;
    shoot.disabled = true; // until frames arrive
    options.camera.start(video).then(
      () => {
        shoot.disabled = false;
        shoot.focus();
      },
      (e: unknown) => {
        cameraBox.hidden = true;
        openCamera.hidden = false;
        options.onProblem(describeCameraError(e));
      },
    );
  });

  // a real button (Enter and Space work natively) opens the hidden input, kept out of the tab order
  const chooser = button(options.multiple ? 'choose files' : 'choose a file', () => input.click(), { class: 'primary chooser' });
  input.tabIndex = -1;
  const zone = h(
    'div',
    { class: 'dropzone', role: 'group', 'aria-label': options.label },
    h('p', {}, options.multiple ? 'Drop photos here, paste one, ' : 'Drop a photo here, paste one, ', chooser, ' or'),
    openCamera,
    input,
  );
  acceptFiles(zone, input, take);
  const root = h('div', { class: 'photo-picker' }, zone, cameraBox);
  const target: PasteTarget = { root, take, problem: options.onProblem, usedAt: 0 };
  const used = () => (target.usedAt = performance.now());
  root.addEventListener('focusin', used);
  root.addEventListener('pointerdown', used);
  if (pasteTargets.size === 0) document.addEventListener('paste', routePaste);
  pasteTargets.add(target);
  return root;
}
