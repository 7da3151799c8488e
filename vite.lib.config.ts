// Library build (`npm run build:lib`, also run by `npm pack`): the installable package in dist/lib.
//   dist/lib/index.js                 the entry (src/package/index.ts): createEngine, shims, router, schemas
//   dist/lib/index.d.ts …             types (tsconfig.lib.json)
//   dist/lib/assets/vision.worker.js  the vision worker: one self-contained file (ORT inlined)
//   dist/lib/ort/                     ONNX Runtime's WASM files (from the ort-assets plugin)
//   dist/lib/models/                  manifest.json and the .onnx models (package-files plugin)
// The entry finds the worker, ORT's files and the models with literal
// new URL('./…', import.meta.url) expressions (src/package/files.ts), so apps' bundlers copy them
// and createEngine() needs no options; docs/install.md.
import { resolve } from 'node:path';
import { defineConfig, mergeConfig, type PluginOption } from 'vite';
import baseConfig from './vite.config.ts';
import { packageFiles } from './tools/vite-package-files.ts';

// the demo's service worker and dev-server model types are not part of the library
const demoOnly = new Set(['offline-support', 'model-types', 'inline-css']);
const basePlugins = (baseConfig.plugins ?? []).filter((p: PluginOption) => !(p && 'name' in p && demoOnly.has(p.name)));

export default mergeConfig(
  { ...baseConfig, plugins: basePlugins },
  defineConfig({
    plugins: [
      packageFiles({
        modelsDir: resolve(import.meta.dirname, 'public/models'),
        ortDir: resolve(import.meta.dirname, 'node_modules/onnxruntime-web/dist'),
      }),
    ],
    // the worker's URL comes from src/package/files.ts, not vision-client's default (src/engine/vision-client.ts)
    define: { 'import.meta.env.KAIROS_LIBRARY': 'true' },
    // the demo's public/ is not copied as is: the plugin copies the models the manifest lists
    publicDir: false,
    // chunk URLs relative to the entry (new URL('./assets/…', import.meta.url)), not to a site root
    base: './',
    worker: {
      format: 'es',
      // one self-contained worker file (ORT inlined, no sibling chunks): apps' bundlers copy it
      // as a plain asset, and createEngine({ workerUrl }) can point at a copy of it
      rolldownOptions: { output: { codeSplitting: false, entryFileNames: 'assets/[name].js' } },
    },
    build: {
      outDir: 'dist/lib',
      emptyOutDir: true,
      sourcemap: true,
      // the worker must stay a separate file (never a base64 data: URL)
      assetsInlineLimit: 0,
      lib: {
        entry: resolve(import.meta.dirname, 'src/package/index.ts'),
        formats: ['es'],
        fileName: 'index',
      },
    },
  }),
);
