// Changes for tests and the bench: random float32 embeddings, base64 little-endian as on the wire.
import { randomUUID } from 'node:crypto';
import type { Change } from '../../../src/sync/protocol.ts';

export const MODEL = 'faceapi-recognition@1.7.15+flip';

export function embeddingBase64(dim = 128, seed = Math.random()): string {
  const bytes = Buffer.alloc(dim * 4);
  let x = Math.floor(seed * 2 ** 31) || 1;
  for (let i = 0; i < dim; i++) {
    x = (x * 48271) % 2147483647;
    bytes.writeFloatLE(x / 2147483647 - 0.5, i * 4);
  }
  return bytes.toString('base64');
}

export function enroll(gallery: string, subject: string, extra: Partial<Extract<Change, { kind: 'enroll' }>> = {}): Extract<Change, { kind: 'enroll' }> {
  return {
    kind: 'enroll',
    change_id: randomUUID(),
    gallery,
    subject,
    template_id: randomUUID(),
    model_id: MODEL,
    enrolled_at: String(Date.now()),
    payload: { mode: 'plain', embedding: embeddingBase64(), box: { topLeftX: 1, topLeftY: 2, width: 30, height: 40 }, quality: 0.8, attributes: { age: 30 } },
    ...extra,
  };
}
