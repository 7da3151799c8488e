// Library build (vite.lib.config.ts): copies the models a call can load into dist/lib/models/
// (with a manifest of those only) and writes, in place of __KAIROS_PACKAGE_FILES__ in the
// entry, the list of the package's files as literal `new URL('./…', import.meta.url).href`
// expressions with each file's size and SHA-256 (src/package/files.ts says why). Done on the
// final chunk, after vite's own asset handling and minification, so the literals reach the app's
// bundler exactly as written. Bundlers copy every file such a literal names, called or not: the
// entry lists only what a default call loads (worker, ORT's WASM build, the callable models);
// ORT's WebGPU build is listed by dist/lib/webgpu.js, which only an app that imports it pulls in.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { ModelManifestSchema } from '../src/models/manifest.ts';
import { CALLABLE_MODELS } from '../src/package/callable-models.ts';
import type { PackageFile } from '../src/package/files.ts';
import { MODEL_DIR, MODEL_MANIFEST, ORT_DIR, ORT_WASM_BUILD, ORT_WEBGPU_BUILD, WEBGPU_MODULE, WORKER_FILE } from '../src/package/files.ts';
import { ortFileBytes } from './vite-ort-assets.ts';

const MARKER = '__KAIROS_PACKAGE_FILES__';
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

type Source = Omit<PackageFile, 'url'> & { from?: string };

function describe(path: string, data: Uint8Array | string, extra: Partial<Source> = {}): Source {
  return { path, bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength, sha256: sha256(data), ...extra };
}

/** The JS expression of the file list: one literal new URL per file. */
export function packageFilesExpression(files: readonly Source[]): string {
  const rows = files.map(({ path, bytes, sha256: hash, model }) => {
    const meta = `path: ${JSON.stringify(path)}, bytes: ${bytes}, sha256: ${JSON.stringify(hash)}${model ? `, model: ${JSON.stringify(model)}` : ''}`;
    return `\t{ ${meta}, url: new URL(${JSON.stringify('./' + path)}, import.meta.url).href }`;
  });
  return `([\n${rows.join(',\n')}\n])`;
}

/** dist/lib/webgpu.js: ORT's WebGPU build as a list of its own, imported only by apps that opt in. */
function webgpuModule(files: readonly Source[]): { js: string; dts: string } {
  return {
    js: [
      "// ORT's WebGPU build (kairos-in-browser/webgpu), an opt-in: importing this module makes the app's",
      '// bundler copy its files. Pass it on: createEngine({ webgpu: webgpuFiles }), engineFiles({ webgpu: webgpuFiles }).',
      `export const webgpuFiles = ${packageFilesExpression(files)};`,
      '',
    ].join('\n'),
    dts: [
      "import type { PackageFile } from './package/index.js';",
      "/** ORT's WebGPU build: pass it to createEngine({ webgpu }) and engineFiles({ webgpu }). */",
      'export declare const webgpuFiles: readonly PackageFile[];',
      '',
    ].join('\n'),
  };
}

export function packageFiles(options: { modelsDir: string; ortDir: string }): Plugin {
  let outDir = 'dist/lib';
  let models: Source[] = [];
  let manifestOut = '';
  return {
    name: 'package-files',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    generateBundle(_options, bundle) {
      const worker = bundle[WORKER_FILE];
      if (!worker || worker.type !== 'asset') throw new Error(`package-files: the build has no ${WORKER_FILE}`);
      const all = ModelManifestSchema.parse(JSON.parse(readFileSync(join(options.modelsDir, MODEL_MANIFEST), 'utf8')));
      const missing = CALLABLE_MODELS.filter((id) => !all.models.some((m) => m.id === id));
      if (missing.length > 0) throw new Error(`package-files: ${missing.join(', ')} not in ${MODEL_MANIFEST}`);
      // the package's manifest names only the models it ships
      const manifest = { ...all, models: all.models.filter((m) => CALLABLE_MODELS.includes(m.id)) };
      manifestOut = JSON.stringify(manifest, null, 2) + '\n';
      models = manifest.models.map((m) => {
        const from = join(options.modelsDir, m.file);
        return describe(MODEL_DIR + m.file, readFileSync(from), { model: m.id, from });
      });
      // as tools/vite-ort-assets.ts writes them into dist/lib/ort/ (the WASM build's binary patched)
      const ort = (names: readonly string[]) => names.map((name) => describe(ORT_DIR + name, ortFileBytes(options.ortDir, name)));
      const files = [describe(WORKER_FILE, worker.source), ...ort(ORT_WASM_BUILD), describe(MODEL_DIR + MODEL_MANIFEST, manifestOut), ...models];
      const webgpu = webgpuModule(ort(ORT_WEBGPU_BUILD));
      this.emitFile({ type: 'asset', fileName: WEBGPU_MODULE, source: webgpu.js });
      this.emitFile({ type: 'asset', fileName: WEBGPU_MODULE.replace(/\.js$/, '.d.ts'), source: webgpu.dts });
      const entries = Object.values(bundle).filter((c) => c.type === 'chunk' && c.code.includes(MARKER));
      for (const chunk of entries) {
        if (chunk.type !== 'chunk') continue;
        if (chunk.code.split(MARKER).length !== 2) throw new Error(`package-files: ${chunk.fileName} must name ${MARKER} once`);
        chunk.code = chunk.code.replace(MARKER, packageFilesExpression(files));
      }
      if (entries.length !== 1) throw new Error(`package-files: ${MARKER} found in ${entries.length} chunks, expected 1`);
    },
    writeBundle() {
      mkdirSync(join(outDir, MODEL_DIR), { recursive: true });
      writeFileSync(join(outDir, MODEL_DIR, MODEL_MANIFEST), manifestOut);
      for (const m of models) copyFileSync(m.from!, join(outDir, m.path));
    },
  };
}
