// Base64 for the gallery file (pure): bytes and float32 vectors. Decoding is strict — only
// the canonical encoding of some bytes is accepted — so a damaged file is refused instead of
// quietly yielding different numbers (atob alone skips whitespace and ignores stray bits).

/** Characters per String.fromCharCode call: well below engines' argument limits. */
const CHUNK = 0x8000;

export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) parts.push(String.fromCharCode(...bytes.subarray(i, i + CHUNK)));
  return btoa(parts.join(''));
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CANONICAL_SHAPE = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes `text` encodes, or undefined when it is not canonical padded base64: the alphabet by
 * one regex, and the bits a padded text's last character carries past the data must be zero
 * (no re-encoding to compare: a sync bootstrap decodes 100k embeddings and ciphertexts).
 */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length % 4 !== 0 || !CANONICAL_SHAPE.test(text)) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const last = padding ? ALPHABET.indexOf(text[text.length - 1 - padding]!) : 0;
  if (padding === 2 ? last & 0xf : padding === 1 ? last & 0x3 : 0) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** float32 little-endian, whatever the platform's byte order: files move between machines. */
export function float32ToBase64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return bytesToBase64(bytes);
}

/** The vector `text` encodes, or why it does not encode one. Values are not checked here. */
export function base64ToFloat32(text: string): Float32Array | { error: string } {
  const bytes = base64ToBytes(text);
  if (!bytes) return { error: 'is not valid base64' };
  if (bytes.length % 4 !== 0) return { error: `is ${bytes.length} bytes, not a whole number of float32 values` };
  const view = new DataView(bytes.buffer);
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
