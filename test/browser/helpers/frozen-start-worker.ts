// A stand-in for a vision worker whose thread freezes while it starts (as Firefox's deadlock
// freezes the real one while ORT creates its WASM thread: docs/testing.md): init never lets the
// thread go, so not even pulse() is answered.
import * as Comlink from 'comlink';

Comlink.expose({
  init(): never {
    for (;;) {
      // frozen: no message is ever handled again
    }
  },
});
