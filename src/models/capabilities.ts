// Which models each capability loads (each on its first use), so an app knows what it will
// download and can precache only that (src/package/files.ts). The README's table is generated
// from this and public/models/manifest.json (tools/models-table.ts); test/e2e/package.e2e.test.ts
// counts the model requests of real apps against it.
import { DEFAULT_EMOTION_MODEL, DEMOGRAPHICS, demographicsModels, DETECTOR_MODEL, EMBEDDING, GEAR_SPLIT, TRACKING_EMBEDDING } from './catalog.ts';

export interface Capability {
  /** what an app calls */
  calls: string;
  /** model ids of public/models/manifest.json */
  models: readonly string[];
}

/** Detection, then the face mesh that verifies each face and gives its landmarks and pose. */
const FACES = [DETECTOR_MODEL, 'facemesh'] as const;
/**
 * Age, gender and ethnicity: the models of the shipped demographics settings, and GEAR's two parts,
 * which a page whose ORT runs one thread loads once its model peer has started (GEAR_SPLIT).
 */
const DEMOGRAPHIC_MODELS = [...demographicsModels(DEMOGRAPHICS), GEAR_SPLIT.head, GEAR_SPLIT.tail];

export const CAPABILITIES = {
  detect: { calls: 'detect', models: [...FACES, ...DEMOGRAPHIC_MODELS] },
  liveness: { calls: "selector 'liveness' (adds to the call's models)", models: ['antispoof', 'liveness'] },
  recognize: { calls: 'enroll, verify, recognize', models: [...FACES, ...DEMOGRAPHIC_MODELS, EMBEDDING.model] },
  emotion: { calls: 'mediaPost (emotion video, v2)', models: [...FACES, ...DEMOGRAPHIC_MODELS, DEFAULT_EMOTION_MODEL, TRACKING_EMBEDDING] },
  // engine.watch: detector and mesh on the frames, emotions per followed face (default emotionModel)
  live: { calls: "watch (live video); with a galleryName add 'recognize'", models: [...FACES, DEFAULT_EMOTION_MODEL] },
} as const satisfies Record<string, Capability>;

export type CapabilityName = keyof typeof CAPABILITIES;

/** The model ids the given capabilities load, each once, in first-use order. */
export function modelsFor(capabilities: readonly CapabilityName[]): string[] {
  return [...new Set(capabilities.flatMap((c) => CAPABILITIES[c].models))];
}
