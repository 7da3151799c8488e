// Byte helpers shared by the model loader and the test encoders.

/** Byte parts joined into one array (no spreading of large arrays: that overflows the call stack). */
export function concatBytes(parts: readonly ArrayLike<number>[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
