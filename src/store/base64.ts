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

/** The bytes `text` encodes, or undefined when it is not canonical padded base64. */
export function base64ToBytes(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  // atob tolerates whitespace and non-zero padding bits: only the canonical form round-trips
  return bytesToBase64(bytes) === text ? bytes : undefined;
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
