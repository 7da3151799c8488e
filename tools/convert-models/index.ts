// `npm run models`: converts every model of the catalog to ONNX under public/models and
// writes public/models/manifest.json. Deterministic: a second run gives identical bytes.
// Usage: npm run models [-- id ...]   (ids limit the run; the manifest keeps other entries)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelManifestSchema, type ModelEntry, type ModelManifest } from '../../src/models/manifest.ts';
import { buildModel, OPSET, packageDir, ROOT, sha256 } from './build.ts';
import { CATALOG, sessionOptimizationOf, type CatalogEntry } from './catalog.ts';
import { outputShapes } from './probe-shapes.ts';

const OUT_DIR = join(ROOT, 'public/models');

async function convert(entry: CatalogEntry): Promise<ModelEntry> {
  const { graph, bytes, version, weightStorage } = await buildModel(entry);
  const file = `${entry.id}.onnx`;
  writeFileSync(join(OUT_DIR, file), bytes);
  const graphInput = graph.inputs[0];
  if (!graphInput || graph.inputs.length !== 1) throw new Error(`${entry.id}: expected exactly one graph input`);
  // an any-size graph is listed (and probed) at its nominal size
  const nominal = entry.source.kind === 'tfjs-graph' ? entry.source.anySize : entry.source.kind === 'part' ? entry.source.nominal : undefined;
  const input = nominal ? { ...graphInput, dims: graphInput.dims?.map((d, i) => ((i === 1 || i === 2) && typeof d === 'string' ? nominal : d)) } : graphInput;
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
    weightStorage,
    input: { name: input.name, shape: input.dims ?? [], ...entry.input, ...(nominal ? { anySize: true } : {}) },
    outputs,
    sessionOptimization: sessionOptimizationOf(entry),
    codeCacheWarmUp: entry.codeCacheWarmUp,
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
