// Test-only (the browser test project): `/__stall/<name>` answers 200, sends a few bytes and then
// nothing, keeping the connection open until the client gives up — a real network stall over
// real HTTP, for the engine's download bound (test/browser/download-stall.test.ts).
import type { Plugin } from 'vite';

export function stallingRoute(): Plugin {
  return {
    name: 'stalling-route',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (!(req.url ?? '').startsWith('/__stall/')) return next();
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Cross-Origin-Resource-Policy': 'same-origin' });
        res.write(new Uint8Array(16));
        // never ended: the client's abort closes it
      });
    },
  };
}
