// Where a photo comes from: drop, pick, paste (while this picker is on screen) or a webcam
// snapshot. Every route ends in onPhotos(files).
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
  /** accepted types; default JPEG and PNG (what the engine reads) */
  accept?: string;
}

const isVisible = (el: HTMLElement) => el.isConnected && el.offsetParent !== null;

export function photoPicker(options: PhotoPickerOptions): HTMLElement {
  const accept = options.accept ?? 'image/jpeg,image/png';
  const input = h('input', { type: 'file', accept, multiple: options.multiple, class: 'visually-hidden' });
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
  document.addEventListener('paste', (e) => {
    if (!isVisible(zone)) return;
    const files = [...(e.clipboardData?.files ?? [])];
    if (files.length > 0) take(files);
  });
  return h('div', { class: 'photo-picker' }, zone, cameraBox);
}
