// `npm run models` must reproduce the committed ONNX files byte for byte, from the pinned
// npm sources recorded in the manifest.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildModel, packageDir, sha256 } from '../../tools/convert-models/build.ts';
import { CATALOG, sessionOptimizationOf } from '../../tools/convert-models/catalog.ts';
import { shippedManifest as manifest, shippedModelBytes } from './helpers/shipped-models.ts';


describe('committed models are reproducible', () => {
  it('the manifest lists every catalog model once', () => {
    expect(manifest.models.map((m) => m.id).sort()).toEqual(CATALOG.map((c) => c.id).sort());
  });

  it("each model's browser optimisation level is the catalog's (layout passes only where measured to pay)", () => {
    expect(Object.fromEntries(manifest.models.map((m) => [m.id, [m.sessionOptimization, m.codeCacheWarmUp ?? false]]))).toEqual(
      Object.fromEntries(CATALOG.map((c) => [c.id, [sessionOptimizationOf(c), c.codeCacheWarmUp ?? false]])),
    );
  });

  for (const entry of CATALOG) {
    it(entry.id, async () => {
      const model = manifest.models.find((m) => m.id === entry.id)!;
      for (const file of model.source.files) {
        expect(sha256(readFileSync(join(packageDir(model.source.package), file.path))), file.path).toBe(file.sha256);
      }
      const committed = shippedModelBytes(model.file);
      expect(sha256(committed)).toBe(model.sha256);
      const first = await buildModel(entry);
      const second = await buildModel(entry);
      expect(sha256(first.bytes), 'a fresh build equals the committed file').toBe(model.sha256);
      expect(Buffer.compare(Buffer.from(first.bytes), Buffer.from(second.bytes))).toBe(0);
    });
  }
});
