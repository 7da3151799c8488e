// A plain static file server for apps built outside this project (test/package): serves a
// folder as any web server would, with or without the COOP/COEP headers, and records every
// path it was asked for so a test can count what a page downloaded.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { crossOriginIsolationHeaders } from '../browser-env.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.css': 'text/css; charset=utf-8',
};

export interface StaticServer {
  /** e.g. http://127.0.0.1:41234 (no trailing slash) */
  baseUrl: string;
  /** request paths in arrival order (GETs of any status) */
  requests: string[];
  close(): Promise<void>;
}

export async function serveStatic(root: string, options: { isolated: boolean }): Promise<StaticServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(path);
    const file = normalize(join(root, path.endsWith('/') ? path + 'index.html' : path));
    let size = -1;
    try {
      if (file.startsWith(root + sep) || file === root) size = statSync(file).isFile() ? statSync(file).size : -1;
    } catch {
      size = -1;
    }
    if (options.isolated) for (const [k, v] of Object.entries(crossOriginIsolationHeaders)) res.setHeader(k, v);
    if (size < 0) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': String(size) });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
