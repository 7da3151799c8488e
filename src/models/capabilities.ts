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
  /**
   * models a page whose ORT runs one thread also loads, once its model peer has started (GEAR's
   * parts: GEAR_SPLIT); a page with two threads never does
   */
  peerModels?: readonly string[];
}

/** Detection, then the face mesh that verifies each face and gives its landmarks and pose. */
const FACES = [DETECTOR_MODEL, 'facemesh'] as const;
/** Age, gender and ethnicity: the models of the shipped demographics settings. */
const DEMOGRAPHIC_MODELS = demographicsModels(DEMOGRAPHICS);
/** GEAR as two parts, for a photo of one face on a one-thread page with a model peer. */
const GEAR_PARTS = [GEAR_SPLIT.head, GEAR_SPLIT.tail];

export const CAPABILITIES = {
  detect: { calls: 'detect', models: [...FACES, ...DEMOGRAPHIC_MODELS], peerModels: GEAR_PARTS },
  liveness: { calls: "selector 'liveness' (adds to the call's models)", models: ['antispoof', 'liveness'] },
  recognize: { calls: 'enroll, verify, recognize', models: [...FACES, ...DEMOGRAPHIC_MODELS, EMBEDDING.model], peerModels: GEAR_PARTS },
  emotion: { calls: 'mediaPost (emotion video, v2)', models: [...FACES, ...DEMOGRAPHIC_MODELS, DEFAULT_EMOTION_MODEL, TRACKING_EMBEDDING], peerModels: GEAR_PARTS },
  // engine.watch: detector and mesh on the frames, emotions per followed face (default emotionModel)
  live: { calls: "watch (live video); with a galleryName add 'recognize'", models: [...FACES, DEFAULT_EMOTION_MODEL] },
} as const satisfies Record<string, Capability>;

export type CapabilityName = keyof typeof CAPABILITIES;

/**
 * The model ids the given capabilities load, each once, in first-use order; with `peerModels`,
 * also those a one-thread page adds (what an app ships and precaches).
 */
export function modelsFor(capabilities: readonly CapabilityName[], options: { peerModels?: boolean } = {}): string[] {
  const of = (c: CapabilityName): Capability => CAPABILITIES[c];
  return [...new Set(capabilities.flatMap((c) => [...of(c).models, ...(options.peerModels ? (of(c).peerModels ?? []) : [])]))];
}
