// Serves ONNX Runtime's WASM glue (.mjs) and binaries (.wasm) from this project under
// /ort/ — in dev, preview and the built dist/ — so nothing is ever fetched from a CDN and
// ORT's pthread workers load ORT's own glue rather than an app chunk. The WASM build's binary
// goes out with a shorter idle spin for ORT's pool threads (tools/ort-wasm-patch.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Connect, Plugin } from 'vite';
import { crossOriginIsolationHeaders } from './browser-env.ts';
import { servedOrtFile } from './ort-wasm-patch.ts';

export const ORT_BASE_PATH = '/ort/';
/** The plain SIMD+threads build (WASM EP) and the asyncify build (WebGPU EP). */
export const ORT_FILES = [
  'ort-wasm-simd-threaded.mjs',
  'ort-wasm-simd-threaded.wasm',
  'ort-wasm-simd-threaded.asyncify.mjs',
  'ort-wasm-simd-threaded.asyncify.wasm',
];

const ortDist = (root: string) => resolve(root, 'node_modules/onnxruntime-web/dist');

/** An ORT file's bytes as served (read once). */
export function ortFileBytes(ortDir: string, name: string, cache?: Map<string, Uint8Array>): Uint8Array {
  let bytes = cache?.get(name);
  if (!bytes) {
    bytes = servedOrtFile(name, readFileSync(join(ortDir, name)));
    cache?.set(name, bytes);
  }
  return bytes;
}

function middleware(root: string): Connect.NextHandleFunction {
  const served = new Map<string, Uint8Array>();
  return (req, res, next) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (!path.startsWith(ORT_BASE_PATH)) return next();
    const name = path.slice(ORT_BASE_PATH.length);
    if (!ORT_FILES.includes(name)) return next();
    const file = join(ortDist(root), name);
    if (!existsSync(file)) return next();
    res.setHeader('Content-Type', name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript');
    const bytes = ortFileBytes(ortDist(root), name, served);
    res.setHeader('Content-Length', String(bytes.byteLength));
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    // ORT's glue also runs as the pthread workers' script, which must be isolated too
    for (const [k, v] of Object.entries(crossOriginIsolationHeaders)) res.setHeader(k, v);
    res.end(bytes);
  };
}

export function ortAssets(): Plugin {
  let root = process.cwd();
  let outDir = 'dist';
  return {
    name: 'ort-assets',
    configResolved(config) {
      root = config.root;
      outDir = resolve(config.root, config.build.outDir);
    },
    configureServer(server) {
      server.middlewares.use(middleware(root));
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware(root));
    },
    writeBundle() {
      const target = join(outDir, ORT_BASE_PATH);
      mkdirSync(target, { recursive: true });
      for (const name of ORT_FILES) writeFileSync(join(target, name), ortFileBytes(ortDist(root), name));
    },
  };
}
