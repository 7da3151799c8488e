// A plain static file server for apps built outside this project (test/package): serves a
// folder as any web server would, with or without the COOP/COEP headers, and records every
// path it was asked for so a test can count what a page downloaded. Its sendFile() also serves
// the bench's library files past vite's transforms (browser-session.ts `staticPaths`).
import { createReadStream, statSync, type Stats } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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
  '.onnx': 'application/octet-stream',
};

export interface StaticServer {
  /** e.g. http://127.0.0.1:41234 (no trailing slash) */
  baseUrl: string;
  /** request paths in arrival order (GETs of any status) */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Sends `path` (a URL path) from under `root` as it is on disk, with its content type, the given
 * headers and validators (ETag, Last-Modified: a returning visitor revalidates and gets a 304,
 * keeping its cached copy and V8's code cache for it). False when no such file exists.
 */
export function sendFile(req: IncomingMessage, res: ServerResponse, root: string, path: string, headers: Record<string, string> = {}): boolean {
  const file = normalize(join(root, path.endsWith('/') ? path + 'index.html' : path));
  let stats: Stats | undefined;
  try {
    if (file.startsWith(root + sep) || file === root) stats = statSync(file);
  } catch {
    stats = undefined;
  }
  if (!stats?.isFile()) return false;
  const etag = `W/"${stats.size}-${stats.mtimeMs}"`;
  const common = { ...headers, ETag: etag, 'Last-Modified': stats.mtime.toUTCString(), 'Cache-Control': 'no-cache' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, common).end();
    return true;
  }
  res.writeHead(200, { ...common, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': String(stats.size) });
  createReadStream(file).pipe(res);
  return true;
}

export async function serveStatic(root: string, options: { isolated: boolean }): Promise<StaticServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(path);
    if (!sendFile(req, res, root, path, options.isolated ? crossOriginIsolationHeaders : {})) {
      if (options.isolated) for (const [k, v] of Object.entries(crossOriginIsolationHeaders)) res.setHeader(k, v);
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
