// Schema of public/models/manifest.json: the one description of every model the
// engine can load. Written by tools/convert-models, read by the vision worker.
import { z } from 'zod';

export const ModelInputSchema = z.object({
  name: z.string(),
  /** e.g. ["batch", 128, 128, 3]; "batch" is a symbolic dimension */
  shape: z.array(z.union([z.number().int(), z.string()])),
  layout: z.literal('NHWC'),
  /** 'features': a feature map made by another model part (not pixels); `range` is its values' range */
  channels: z.enum(['RGB', 'gray', 'features']),
  /** the value range the network expects after normalisation */
  range: z.tuple([z.number(), z.number()]),
  /** how the input crop is made from the image */
  crop: z.string(),
  /**
   * the graph also takes other heights and widths (multiples of its largest stride): `shape`
   * is then its nominal size, and the outputs grow with the input (a detector run over a whole frame)
   */
  anySize: z.boolean().optional(),
});

export const ModelOutputSchema = z.object({
  name: z.string(),
  shape: z.array(z.union([z.number().int(), z.string()])),
  meaning: z.string(),
});

export const ModelEntrySchema = z.object({
  id: z.string(),
  file: z.string(),
  description: z.string(),
  source: z.object({
    package: z.string(),
    version: z.string(),
    files: z.array(z.object({ path: z.string(), sha256: z.string() })),
    license: z.string(),
  }),
  sha256: z.string(),
  bytes: z.number().int(),
  opset: z.number().int(),
  // uint8: 8-bit values with a per-channel scale and offset, rebuilt to float32 at session creation;
  // int8: convolutions quantised (QDQ, run as QLinearConv), other weights uint8
  weightStorage: z.enum(['float32', 'float16', 'uint8', 'int8']),
  input: ModelInputSchema,
  outputs: z.array(ModelOutputSchema),
  /**
   * ORT's optimisation level for the browser's session: 'all' where its machine-specific layout
   * passes make the graph faster, 'disabled' where the build already did everything
   * (tools/convert-models/catalog.ts `layoutPasses`); a manifest without it gets 'all'
   */
  sessionOptimization: z.enum(['all', 'disabled']).default('all'),
  /**
   * the worker creates and releases two throwaway sessions of this model at level 'all' once it
   * is idle after the model's first use, so that V8 writes ORT's WASM to the browser's code cache
   * for the next visit (catalog `codeCacheWarmUp`; docs/benchmarks.md, "A traced cold start")
   */
  codeCacheWarmUp: z.boolean().optional(),
});

export const ModelManifestSchema = z.object({
  generatedBy: z.string(),
  models: z.array(ModelEntrySchema),
});

export type ModelEntry = z.infer<typeof ModelEntrySchema>;
export type ModelManifest = z.infer<typeof ModelManifestSchema>;
export type ModelId = ModelEntry['id'];
