// Files arriving at a drop zone: picked with its (hidden) file input, or dropped on it.
// Shared by the photo picker and the emotion screen's video source.

export function acceptFiles(zone: HTMLElement, input: HTMLInputElement, take: (files: File[]) => void): void {
  input.addEventListener('change', () => {
    take([...(input.files ?? [])]);
    input.value = ''; // the same file again must fire change again
  });
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    take([...(e.dataTransfer?.files ?? [])]);
  });
}
