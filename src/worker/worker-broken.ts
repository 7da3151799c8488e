// A worker whose ONNX Runtime never finished starting can run no model again (ORT's start can be
// neither cancelled nor repeated in the same worker), yet its thread is free and answers pings:
// the page's watchdog (src/engine/vision-client.ts) would never find it dead. So it says so to
// whoever started it, with one message outside comlink's (comlink ignores messages without its
// ids), and that side ends it and starts a fresh one for the next call.

const KEY = 'kairosWorkerBroken';

/** Tells the worker's owner that this worker cannot go on, and why. */
export function declareBroken(reason: string): void {
  (globalThis as unknown as { postMessage(message: unknown): void }).postMessage({ [KEY]: reason });
}

/** The reason a worker gave in a message from `declareBroken`; undefined for any other message. */
export function brokenReason(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !(KEY in data)) return undefined;
  const reason = (data as Record<string, unknown>)[KEY];
  return typeof reason === 'string' ? reason : 'no reason given';
}
