// Byte helpers shared by the model loader, the image intake and the test encoders.

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

/**
 * A response's body as one array, read chunk by chunk: `onChunk` is told the bytes received so far
 * after each chunk (a download's progress; it may throw to stop, and the body is then cancelled).
 */
export async function readResponseBytes(response: Response, onChunk: (received: number) => void = () => {}): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.length;
    chunks.push(value);
    try {
      onChunk(received);
    } catch (error) {
      void reader.cancel().catch(() => {});
      throw error;
    }
  }
  return chunks.length === 1 ? chunks[0]! : concatBytes(chunks);
}
