// The string `face_id` of an enrolled template: a UUID version 7 (RFC 9562). Its first 48
// bits are the epoch-ms time, so ids sort by enrollment time and a subject's templates come
// out of IndexedDB (whose keys end in the face id) in the order they were enrolled.

let lastMs = -1;
let counter = 0;

/**
 * A new id, greater than every id this context made before (RFC 9562 §6.2 method 1: a 12-bit
 * counter in rand_a, seeded randomly each new millisecond; the clock going back never makes
 * ids go back). Uniqueness across tabs rests on the 62 random bits.
 */
export function newFaceId(now: number = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  if (now > lastMs) {
    lastMs = now;
    counter = ((bytes[6]! << 8) | bytes[7]!) & 0x7ff; // random start, at most half the space
  } else if (++counter > 0xfff) {
    lastMs += 1; // borrow the next millisecond rather than repeat
    counter = 0;
  }
  let ms = lastMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return uuidOfBytes(bytes, 0);
}

// The 16-byte form: how the search index (face-id-table.ts) and the stored segments
// (segments.ts) keep ids in the engine's own form (lowercase UUIDs), a typed array for a
// million of them instead of a million strings (no parse, no per-id object on reopen).

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** where a UUID's 32 hex digits stand (between the dashes at 8, 13, 18 and 23) */
const DIGITS = Array.from({ length: 36 }, (_, i) => i).filter((i) => ![8, 13, 18, 23].includes(i));

/** a lowercase hex digit's value, else -1 */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/**
 * Writes `id`'s 16 bytes into target[at, at + 16) if it is a lowercase UUID (true); else
 * false, and what was written there means nothing. Char codes, no allocation: a reopen or an
 * import parses a million.
 */
export function writeUuidBytes(id: string, target: Uint8Array, at: number): boolean {
  if (id.length !== 36 || id[8] !== '-' || id[13] !== '-' || id[18] !== '-' || id[23] !== '-') return false;
  for (let i = 0; i < 16; i++) {
    const high = hexValue(id.charCodeAt(DIGITS[2 * i]!));
    const low = hexValue(id.charCodeAt(DIGITS[2 * i + 1]!));
    if (high < 0 || low < 0) return false;
    target[at + i] = (high << 4) | low;
  }
  return true;
}

/** The lowercase UUID whose bytes are source[at, at + 16). */
export function uuidOfBytes(source: Uint8Array, at: number): string {
  const part = (from: number, to: number) => {
    let s = '';
    for (let i = from; i < to; i++) s += HEX[source[at + i]!]!;
    return s;
  };
  return `${part(0, 4)}-${part(4, 6)}-${part(6, 8)}-${part(8, 10)}-${part(10, 16)}`;
}
