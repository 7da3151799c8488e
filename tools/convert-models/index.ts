// `npm run models`: converts every model of the catalog to ONNX under public/models and
// writes public/models/manifest.json. Deterministic: a second run gives identical bytes.
// Usage: npm run models [-- id ...]   (ids limit the run; the manifest keeps other entries)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelManifestSchema, type ModelEntry, type ModelManifest } from '../../src/models/manifest.ts';
import { serializeModel, type GraphDef } from '../onnx/onnx-model.ts';
import { CATALOG, type CatalogEntry } from './catalog.ts';
import { convertTfjsGraph } from './tfjs-graph.ts';
import { outputShapes } from './probe-shapes.ts';

export const OPSET = 17;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT_DIR = join(ROOT, 'public/models');

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function packageDir(pkg: string): string {
  return join(ROOT, 'node_modules', pkg);
}

function packageVersion(pkg: string): string {
  return (JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8')) as { version: string }).version;
}

async function buildGraph(entry: CatalogEntry): Promise<GraphDef> {
  const dir = packageDir(entry.package);
  const src = entry.source;
  switch (src.kind) {
    case 'tfjs-graph':
      return convertTfjsGraph(join(dir, src.modelJson), { name: entry.id, renameOutputs: src.renameOutputs });
    case 'faceapi-recognition': {
      const { buildFaceRecognitionGraph } = await import('./faceapi/recognition.ts');
      return buildFaceRecognitionGraph(join(dir, 'model'));
    }
    case 'faceapi-expression': {
      const { buildFaceExpressionGraph } = await import('./faceapi/expression.ts');
      return buildFaceExpressionGraph(join(dir, 'model'));
    }
  }
}

async function convert(entry: CatalogEntry): Promise<ModelEntry> {
  const version = packageVersion(entry.package);
  const graph = await buildGraph(entry);
  const bytes = serializeModel({
    graph,
    opset: OPSET,
    producerName: 'kairos-in-browser/tools/convert-models',
    producerVersion: '1',
    docString: entry.description,
    metadata: { source: `${entry.package}@${version}`, id: entry.id },
  });
  const file = `${entry.id}.onnx`;
  writeFileSync(join(OUT_DIR, file), bytes);
  const input = graph.inputs[0];
  if (!input || graph.inputs.length !== 1) throw new Error(`${entry.id}: expected exactly one graph input`);
  const shapes = await outputShapes(bytes, input);
  const outputs = graph.outputs.map((o) => {
    const meaning = entry.outputs[o.name];
    if (!meaning) throw new Error(`${entry.id}: output ${o.name} has no meaning in the catalog`);
    return { name: o.name, shape: shapes[o.name]!, meaning };
  });
  return {
    id: entry.id,
    file,
    description: entry.description,
    source: {
      package: entry.package,
      version,
      license: 'MIT',
      files: entry.sourceFiles.map((path) => ({ path, sha256: sha256(readFileSync(join(packageDir(entry.package), path))) })),
    },
    sha256: sha256(bytes),
    bytes: bytes.length,
    opset: OPSET,
    weightStorage: 'float32',
    input: { name: input.name, shape: input.dims ?? [], ...entry.input },
    outputs,
  };
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  mkdirSync(OUT_DIR, { recursive: true });
  const manifestPath = join(OUT_DIR, 'manifest.json');
  const previous: ModelManifest | undefined = existsSync(manifestPath)
    ? ModelManifestSchema.parse(JSON.parse(readFileSync(manifestPath, 'utf8')))
    : undefined;
  const models: ModelEntry[] = [];
  for (const entry of CATALOG) {
    if (only.length > 0 && !only.includes(entry.id)) {
      const kept = previous?.models.find((m) => m.id === entry.id);
      if (kept) models.push(kept);
      continue;
    }
    const started = performance.now();
    const model = await convert(entry);
    models.push(model);
    console.log(`${model.id.padEnd(24)} ${(model.bytes / 1e6).toFixed(2).padStart(6)} MB  ${model.sha256.slice(0, 12)}  ${(performance.now() - started).toFixed(0)} ms`);
  }
  const manifest: ModelManifest = { generatedBy: 'npm run models (tools/convert-models)', models };
  writeFileSync(manifestPath, `${JSON.stringify(ModelManifestSchema.parse(manifest), null, 2)}\n`);
  console.log(`wrote ${models.length} models and manifest.json to public/models`);
}

await main();
