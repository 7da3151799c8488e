// A stand-in for the vision worker in vision-client.test.ts: the same comlink surface for the
// calls the client itself makes (init, backendInfo), plus a call that never lets its thread
// go (as a worker the browser has frozen or killed for memory never answers).
import * as Comlink from 'comlink';

const startedAt = performance.now();
let env: unknown;

Comlink.expose({
  init(e: unknown) {
    env = e;
    return { startedAt };
  },
  backendInfo() {
    return { startedAt, env };
  },
  hang(): never {
    for (;;) {
      // busy forever: no message is ever handled again
    }
  },
});
