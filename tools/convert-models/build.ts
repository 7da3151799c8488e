// Builds one catalog entry's ONNX bytes in memory (shared by `npm run models` and the
// reproducibility test, which checks the committed files against a fresh build).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fuseClipActivations } from '../onnx/clip-activations.ts';
import { compressWeights, DEFAULT_COMPRESS, weightStorageOf } from '../onnx/compress-weights.ts';
import { foldScaleShiftIntoNextConv } from '../onnx/fold-scale-shift.ts';
import { serializeModel, type GraphDef, type OpsetImport } from '../onnx/onnx-model.ts';
import { ortOptimize } from '../onnx/ort-optimize.ts';
import { unpackStoredWeights } from '../../src/models/unpack-weights.ts';
import { quantizeConvs } from '../onnx/quantize-qdq.ts';
import { parseModel } from '../onnx/parse-model.ts';
import { splitGraph } from '../onnx/split-graph.ts';
import { CATALOG, type CatalogEntry } from './catalog.ts';
import { convertTfjsGraph } from './tfjs-graph.ts';

export const OPSET = 17;

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function packageDir(pkg: string): string {
  return join(ROOT, 'node_modules', pkg);
}

export function packageVersion(pkg: string): string {
  return (JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8')) as { version: string }).version;
}

async function buildGraph(entry: CatalogEntry): Promise<GraphDef> {
  const dir = packageDir(entry.package);
  const src = entry.source;
  switch (src.kind) {
    case 'part':
      throw new Error(`${entry.id} is cut from ${src.of}'s shipped graph (buildPart), not converted`);
    case 'tfjs-graph':
      return convertTfjsGraph(join(dir, src.modelJson), { name: entry.id, renameOutputs: src.renameOutputs, float16Weights: true, anySize: src.anySize !== undefined });
    case 'faceapi-recognition': {
      const { buildFaceRecognitionGraph } = await import('./faceapi/recognition.ts');
      // int8 convolutions get their own grid from float filters; otherwise face-api's 8-bit one is kept
      return buildFaceRecognitionGraph(join(dir, 'model'), { sourceGrid: entry.quantize === undefined });
    }
    case 'faceapi-expression': {
      const { buildFaceExpressionGraph } = await import('./faceapi/expression.ts');
      return buildFaceExpressionGraph(join(dir, 'model'));
    }
    case 'faceapi-age-gender': {
      const { buildAgeGenderGraph } = await import('./faceapi/age-gender.ts');
      return buildAgeGenderGraph(join(dir, 'model'));
    }
  }
}

/** int8 QDQ convolutions (catalog `quantize`), calibrated on face crops at the model's nominal size. */
async function quantizeInt8(entry: CatalogEntry & Required<Pick<CatalogEntry, 'quantize'>>, graph: GraphDef): Promise<GraphDef> {
  const { calibrate, calibrationCrops } = await import('./calibrate.ts');
  const dims = graph.inputs[0]!.dims ?? [];
  const side = entry.source.kind === 'tfjs-graph' && entry.source.anySize ? entry.source.anySize : Number(dims[1]);
  const ranges = await calibrate(graph, calibrationCrops(side, entry.input.range), [1, side, side, 3]);
  const convNodes = graph.nodes.filter((n) => n.opType === 'Conv');
  const { floatFirst, floatLast } = entry.quantize;
  const depthwise = (i: number) => ((convNodes[i]!.attributes.group as { value: number } | undefined)?.value ?? 1) > 1;
  return quantizeConvs(graph, ranges, (_name, i) => i < floatFirst || i >= convNodes.length - floatLast || depthwise(i));
}

export interface BuiltModel {
  graph: GraphDef;
  bytes: Uint8Array;
  version: string;
  weightStorage: ReturnType<typeof weightStorageOf>;
}

/** The non-default opset imports the graph's nodes use (ORT's saved model lists every domain it knows). */
const usedOpsets = (graph: GraphDef, opsets: OpsetImport[]) => opsets.filter((o) => o.domain !== '' && graph.nodes.some((n) => n.domain === o.domain));

/** How the shipped file stores float weights (tools/onnx/compress-weights.ts). */
function storeWeights(graph: GraphDef, storage: NonNullable<CatalogEntry['storage']>): GraphDef {
  // 'source' keeps what the source stores: the detectors' float16
  return compressWeights(graph, { ...DEFAULT_COMPRESS, storage: storage === 'source' ? 'float16' : storage });
}

const serialize = (graph: GraphDef, entry: CatalogEntry, version: string, extraOpsets?: OpsetImport[]) =>
  serializeModel({
    graph,
    opset: OPSET,
    extraOpsets,
    producerName: 'kairos-in-browser/tools/convert-models',
    producerVersion: '1',
    docString: entry.description,
    metadata: { source: `${entry.package}@${version}`, id: entry.id },
  });

/**
 * `float: true` keeps the weights as the source stores them (what the parity tests compare
 * with TF.js). The shipped files are what ORT would make of the stored model: the weights are
 * stored small, unpacked as the browser unpacks them, ORT's optimiser runs on that
 * (tools/onnx/ort-optimize.ts), and the result is stored small again. A weight ORT leaves alone
 * keeps exactly its stored values; one it rewrites (a fused scale) is stored anew.
 */
export async function buildModel(entry: CatalogEntry, options: { float?: boolean; /** the stored model before ORT's build-time optimisation (tests) */ unoptimized?: boolean } = {}): Promise<BuiltModel> {
  if (entry.source.kind === 'part') {
    if (options.float || options.unoptimized) throw new Error(`${entry.id} is cut from ${entry.source.of}'s shipped graph only`);
    return buildPart(entry, entry.source);
  }
  const built = buildWhole(entry, options);
  if (!options.float && !options.unoptimized) shippedBuilds.set(entry.id, built);
  return built;
}

/**
 * Each entry's latest shipped build in this process, for its parts: `npm run models` then
 * calibrates GEAR once, not once more for each part. Only parts read it: a build of the entry
 * itself is always fresh (the reproducibility test builds each twice).
 */
const shippedBuilds = new Map<string, Promise<BuiltModel>>();

/** A part of another entry: that entry's shipped graph (as serialised into its file) cut in two. */
async function buildPart(entry: CatalogEntry, source: Extract<CatalogEntry['source'], { kind: 'part' }>): Promise<BuiltModel> {
  const whole = CATALOG.find((c) => c.id === source.of);
  if (!whole) throw new Error(`${entry.id}: no catalog entry ${source.of}`);
  const wholeBytes = (await (shippedBuilds.get(whole.id) ?? buildModel(whole))).bytes;
  const { graph: wholeGraph, opsets } = parseModel(wholeBytes);
  const split = splitGraph(wholeGraph, source.cut);
  // the tail's input range is static catalog data: it must be what the cut's grid gives
  if (source.part === 'tail' && split.range.some((v, i) => v !== entry.input.range[i])) {
    throw new Error(`${entry.id}: its input range is [${split.range.join(', ')}], the catalog says [${entry.input.range.join(', ')}]`);
  }
  const graph = split[source.part];
  const version = packageVersion(entry.package);
  // the opset imports the whole model had
  return { graph, bytes: serialize(graph, entry, version, opsets.filter((o) => o.domain !== '')), version, weightStorage: weightStorageOf(graph) };
}

async function buildWhole(entry: CatalogEntry, options: Parameters<typeof buildModel>[1] & {}): Promise<BuiltModel> {
  const version = packageVersion(entry.package);
  // graph hygiene ORT's own optimiser cannot do (see each pass's header)
  const source = foldScaleShiftIntoNextConv(fuseClipActivations(await buildGraph(entry)));
  const built = (graph: GraphDef, extraOpsets?: OpsetImport[]): BuiltModel => ({ graph, bytes: serialize(graph, entry, version, extraOpsets), version, weightStorage: weightStorageOf(graph) });
  if (options.float) return built(source);
  const storage = entry.storage ?? 'uint8';
  const quantized = entry.quantize ? await quantizeInt8({ ...entry, quantize: entry.quantize }, source) : source;
  const stored = storage === 'source' ? quantized : storeWeights(quantized, storage);
  if (options.unoptimized) return built(stored);
  const optimized = await ortOptimize(unpackStoredWeights(serialize(stored, entry, version)).model, { layoutPasses: entry.layoutPasses === 'build' });
  const graph = storeWeights(optimized.graph, storage);
  return built(graph, usedOpsets(graph, optimized.opsets));
}
