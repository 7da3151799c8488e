// Library build (vite.lib.config.ts): copies the models into dist/lib/models/ and writes, in
// place of __KAIROS_PACKAGE_FILES__ in the entry, the list of the package's files as literal
// `new URL('./…', import.meta.url).href` expressions with each file's size and SHA-256
// (src/package/files.ts says why). Done on the final chunk, after vite's own asset handling
// and minification, so the literals reach the app's bundler exactly as written.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { ModelManifestSchema } from '../src/models/manifest.ts';
import type { PackageFile } from '../src/package/files.ts';
import { MODEL_DIR, MODEL_MANIFEST, ORT_DIR, WORKER_FILE } from '../src/package/files.ts';
import { ORT_FILES, ortFileBytes } from './vite-ort-assets.ts';

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

export function packageFiles(options: { modelsDir: string; ortDir: string }): Plugin {
  let outDir = 'dist/lib';
  let models: Source[] = [];
  return {
    name: 'package-files',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    generateBundle(_options, bundle) {
      const worker = bundle[WORKER_FILE];
      if (!worker || worker.type !== 'asset') throw new Error(`package-files: the build has no ${WORKER_FILE}`);
      const manifestText = readFileSync(join(options.modelsDir, MODEL_MANIFEST));
      const manifest = ModelManifestSchema.parse(JSON.parse(manifestText.toString('utf8')));
      models = [
        describe(MODEL_DIR + MODEL_MANIFEST, manifestText, { from: join(options.modelsDir, MODEL_MANIFEST) }),
        ...manifest.models.map((m) => {
          const from = join(options.modelsDir, m.file);
          return describe(MODEL_DIR + m.file, readFileSync(from), { model: m.id, from });
        }),
      ];
      // as tools/vite-ort-assets.ts writes them into dist/lib/ort/ (the WASM build's binary patched)
      const ort = ORT_FILES.map((name) => describe(ORT_DIR + name, ortFileBytes(options.ortDir, name)));
      const files = [describe(WORKER_FILE, worker.source), ...ort, ...models];
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
      for (const m of models) copyFileSync(m.from!, join(outDir, m.path));
    },
  };
}
