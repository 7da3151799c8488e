// Library build: src/index.ts as an ES module into dist/lib, for apps that bundle this engine.
//   dist/lib/index.js                 the entry (createEngine, shims, router, schemas)
//   dist/lib/assets/vision.worker.js  the vision worker: one self-contained file (ORT inlined), which
//                                     the entry loads with new Worker(new URL('assets/…', import.meta.url));
//                                     or point createEngine({ workerUrl }) at a copy of it
//   dist/lib/ort/                     ONNX Runtime's WASM files (from the ort-assets plugin)
// Models and ORT's WASM are fetched at run time from createEngine({ modelBaseUrl, ortWasmBaseUrl })
// (defaults /models/ and /ort/): the consuming app serves public/models/ and dist/lib/ort/ there.
import { resolve } from 'node:path';
import { defineConfig, mergeConfig } from 'vite';
import baseConfig from './vite.config.ts';

export default mergeConfig(
  baseConfig,
  defineConfig({
    // the demo's public/ (models) is not part of the library
    publicDir: false,
    // chunk URLs relative to the entry (new URL('./assets/…', import.meta.url)), not to a site root
    base: './',
    worker: {
      format: 'es',
      // one self-contained worker file (ORT inlined, no sibling chunks): an app's bundler can
      // copy it as a plain asset, and createEngine({ workerUrl }) can point at it directly
      rolldownOptions: { output: { codeSplitting: false, entryFileNames: 'assets/[name].js' } },
    },
    build: {
      outDir: 'dist/lib',
      emptyOutDir: true,
      sourcemap: true,
      // the worker must stay a separate file (never a base64 data: URL)
      assetsInlineLimit: 0,
      lib: {
        entry: resolve(import.meta.dirname, 'src/index.ts'),
        formats: ['es'],
        fileName: 'index',
      },
    },
  }),
);
