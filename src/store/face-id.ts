// The string `face_id` of an enrolled template: a UUID version 7 (RFC 9562). Its first 48
// bits are the epoch-ms time, so ids sort by enrollment time and a subject's templates come
// out of IndexedDB (whose keys end in the face id) in the order they were enrolled.

let lastMs = -1;
let counter = 0;

const hex = (bytes: Uint8Array, from: number, to: number) =>
  Array.from(bytes.subarray(from, to), (b) => b.toString(16).padStart(2, '0')).join('');

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
  return `${hex(bytes, 0, 4)}-${hex(bytes, 4, 6)}-${hex(bytes, 6, 8)}-${hex(bytes, 8, 10)}-${hex(bytes, 10, 16)}`;
}
