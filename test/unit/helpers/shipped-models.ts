// The committed models (public/models) as the Node tests read them: the manifest, parsed by its
// schema, and a model file's bytes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelManifestSchema } from '../../../src/models/manifest.ts';
import { ROOT } from '../../../tools/convert-models/build.ts';

export const MODELS_DIR = join(ROOT, 'public/models');

export const shippedManifest = ModelManifestSchema.parse(JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8')));

export const shippedModelBytes = (file: string): Uint8Array => new Uint8Array(readFileSync(join(MODELS_DIR, file)));
