// Strict base64 decoding for pulled data, as strict as store/base64.ts's (only the canonical
// encoding of some bytes is accepted) without encoding the bytes again to compare: the
// alphabet is checked by one regex and the bits a padded text's last character carries past
// the data must be zero. A bootstrap decodes 100k embeddings (and ciphertexts): the
// re-encoding was a fifth of its decoding.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CANONICAL_SHAPE = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes `text` encodes, or undefined when it is not canonical padded base64. */
export function bytesOfBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length % 4 !== 0 || !CANONICAL_SHAPE.test(text)) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const last = padding ? ALPHABET.indexOf(text[text.length - 1 - padding]!) : 0;
  if (padding === 2 ? last & 0xf : padding === 1 ? last & 0x3 : 0) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
