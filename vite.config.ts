import { realpathSync } from 'node:fs';
import { defineConfig, defaultClientConditions } from 'vite';
import { crossOriginIsolationHeaders } from './tools/browser-env.ts';
import { inlineCss } from './tools/vite-inline-css.ts';
import { modelTypes } from './tools/vite-model-types.ts';
import { offlineSupport } from './tools/vite-offline.ts';
import { ortAssets } from './tools/vite-ort-assets.ts';

function sharedRealPath(): string[] {
  try {
    return [realpathSync(new URL('../shared', import.meta.url))];
  } catch {
    return []; // no test data next to this checkout
  }
}

export default defineConfig({
  // offlineSupport: /sw.js and its precache manifest of the build (docs/offline.md)
  // modelTypes: .onnx as octet-stream, so vite preview does not gzip models on the fly
  // inlineCss: the stylesheet inside index.html, so the first paint needs the HTML alone
  plugins: [ortAssets(), modelTypes(), inlineCss(), offlineSupport()],
  // Both servers send COOP/COEP so the page is cross-origin isolated (threads for ORT).
  // ../shared's real path too: in a git worktree ../shared may be a symlink, and vite checks a
  // file's real path against this list
  server: { headers: crossOriginIsolationHeaders, fs: { allow: ['.', '../shared', ...sharedRealPath()] } },
  preview: { headers: crossOriginIsolationHeaders },
  resolve: {
    // ORT's "extern wasm" builds load their glue from ort.env.wasm.wasmPaths (our /ort/)
    // instead of inlining it into the app bundle.
    conditions: [...defaultClientConditions, 'onnxruntime-web-use-extern-wasm'],
  },
  worker: { format: 'es' },
  // pre-bundled up front so the first visit is not reloaded by dependency discovery
  optimizeDeps: { exclude: ['onnxruntime-web'], include: ['comlink', 'zod', 'idb'] },
  // every URL of the build relative to the page or the module that names it: the demo works
  // from any base path (a GitHub Pages project folder, a sub-path behind a proxy)
  base: './',
  build: { target: 'es2022' },
});
