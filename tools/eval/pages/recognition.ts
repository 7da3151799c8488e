// Runs in the eval page: embeddings of the largest face of a ../shared/data image, for every
// embedding model, with and without flip test-time augmentation.
import { startVisionWorker } from '../../../src/engine/vision-client.ts';
import { resolveRuntimeEnv } from '../../../src/env.ts';
import type { EmbeddingModelId } from '../../../src/models/catalog.ts';
import { expose } from '../../harness/page.ts';

const vision = startVisionWorker();
const ready = vision.api.init(resolveRuntimeEnv({ backend: 'wasm' }));

export interface EmbedResult {
  faces: number;
  /** "model" and "model+flip" → embedding of the largest face */
  embeddings: Record<string, number[]>;
  error?: string;
}

async function embed(dataPath: string, models: EmbeddingModelId[]): Promise<EmbedResult> {
  await ready;
  const blob = await (await fetch(`/@fs${dataPath}`)).blob();
  const embeddings: Record<string, number[]> = {};
  let faces = 0;
  for (const flip of [false, true]) {
    const r = await vision.api.analyze(blob, {
      minHeadScale: 0.015,
      selector: { roll: false, full: false, liveness: false },
      demographics: false,
      emotion: false,
      keepMesh: false,
      embed: { models, flip },
    });
    if (!r.ok) return { faces: 0, embeddings: {}, error: r.error.message };
    faces = r.value.faces.length;
    const largest = r.value.faces[0];
    for (const [id, v] of Object.entries(largest?.embeddings ?? {})) embeddings[flip ? `${id}+flip` : id] = Array.from(v);
  }
  return { faces, embeddings };
}

expose({ embed });
import './bbt-groups.ts';
