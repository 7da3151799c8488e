// The `file` field of responses: the uploaded file's name, the URL's last path segment,
// or "image" for base64, unnamed blobs and decoded images (pure).
import type { ImageSource } from '../intake/image-input.ts';

export function imageFileName(image: ImageSource): string {
  if (typeof image !== 'string') return image instanceof File && image.name ? image.name : 'image';
  if (/^https?:\/\//i.test(image.trim())) {
    try {
      const segment = new URL(image.trim()).pathname.split('/').filter(Boolean).pop();
      return segment ? decodeURIComponent(segment) : 'image';
    } catch {
      return 'image';
    }
  }
  return 'image';
}
