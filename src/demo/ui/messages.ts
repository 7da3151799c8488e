// Error bodies as sentences a person can act on. The body's own message is kept for
// codes this page has nothing better to say about.
import type { ApiError } from './api-client.ts';

const SENTENCES: Record<number, string> = {
  1002: 'Something required is missing.',
  3003: 'The app_id/app_key pair was refused.',
  5000: 'This file is not a photo the engine can read (use a JPEG, PNG, WebP, AVIF, GIF or BMP photo).',
  5001: 'The image could not be fetched.',
  5002: 'No face found in this photo.',
  5003: 'That subject is not in the gallery.',
  5004: 'That gallery does not exist.',
  5005: 'The face data is corrupt.',
  5010: 'There is more than one face in this photo: use a photo with only this person, or crop it.',
  5012: 'No match found.',
};

export function describeError(error: ApiError): string {
  const sentence = SENTENCES[error.code];
  return sentence ? `${sentence} (error ${error.code}: ${error.message})` : `${error.message} (error ${error.code})`;
}

/** Why the camera could not start, from getUserMedia's DOMException name. */
export function describeCameraError(error: unknown): string {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'Camera access was denied. Allow the camera for this page in the browser, or use a photo instead.';
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'No camera was found on this device. Use a photo instead.';
  if (name === 'NotReadableError') return 'The camera is in use by another application.';
  if (!navigator.mediaDevices?.getUserMedia) return 'This browser gives no camera access here (it needs https or localhost).';
  return `The camera could not start: ${error instanceof Error ? error.message : String(error)}`;
}
