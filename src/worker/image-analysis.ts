// One image through the whole pipeline: intake → detection → per-face analysis.
import { EngineError } from '../errors.ts';
import { encodeBitmap, intakeImage, isTransferredImage, receiveDecodedImage, type ImageFormat, type ImageInput, type TransferredImage } from '../intake/index.ts';
import { FORMAT_MIME } from '../intake/sniff.ts';
import type { DetectorId } from '../vision/detectors.ts';
import type { SelectorFlags } from '../vision/selector.ts';
import type { CropRenderer } from './crop-renderer.ts';
import {
  DEFAULT_EMOTION_MODEL,
  DEMOGRAPHICS,
  demographicsModels,
  DETECTOR_MODEL,
  EMBEDDING,
  type DemographicsSettings,
  type EmbeddingModelId,
  type EmotionModelId,
} from '../models/catalog.ts';
import { FaceAnalyzer, type FaceAnalysis } from './face-analyzer.ts';
import { detectFaces, type DetectorStats, type EdgeSearch } from './face-detector.ts';
import type { ModelRegistry } from './model-registry.ts';

/**
 * Faces cut by the frame's edge (on unless createEngine({ cutFaces: false })): the whole-frame run
 * becomes a pass with the frame 96 px on its longer side (not the detector's 128) and 32 px of
 * its edges mirrored around it — 160×144 for a 640×480 photo against the unpadded 128×128 view.
 * Border-cut subset (cuts-cli, 30 photos): 95.9% found, 0 extra boxes (95.2% with the frame at
 * 128 px, 82.2% unpadded); docs/detection.md has the levers and their costs.
 */
export const CUT_FACE_EDGES: EdgeSearch = { pad: 32, wholeSide: 96, fill: 'mirror', wholeAsPass: true, fallbackPad: 64 };
/** cutFaces: false — the whole frame as one unpadded square view */
export const UNPADDED_EDGES: EdgeSearch = { pad: 0, fill: 'black', wholeAsPass: false };

/**
 * /detect's finer passes run only for faces down to 1/8 of the smallest face the coarser runs
 * found (face-detector.ts searchCoarseFirst); a photo where they found none runs them all.
 */
export const SMALL_FACE_RATIO = 8;

/** Detection settings per selector, chosen by `npm run eval` (docs/accuracy.md). */
export const DETECTION: DetectionSettings = {
  detector: DETECTOR_MODEL,
  minScore: 0.6,
  fullMinScore: 0.45,
  minMeshScore: 0.65,
  shiftedMeshBelow: 0.65,
  rollAngles: [0, Math.PI / 3, -Math.PI / 3],
  minFacePixels: 28,
  edges: CUT_FACE_EDGES,
  smallFaceRatio: SMALL_FACE_RATIO,
};

/**
 * The models a default request meets, in the order it meets them: detection, mesh,
 * demographics (/detect), emotions (/v2/media), the embedding (/enroll, /verify, /recognize).
 * Liveness and the FULL/ROLL detectors load when a request first asks for them.
 */
export const PIPELINE_MODELS: readonly string[] = [DETECTION.detector, 'facemesh', ...demographicsModels(DEMOGRAPHICS), DEFAULT_EMOTION_MODEL, EMBEDDING.model];

/** The models one request runs (pure): loaded together when it arrives, and only those. */
export function modelsOfRequest(options: ImageAnalysisOptions, settings: DetectionSettings = DETECTION): string[] {
  const ids = [settings.detector, 'facemesh'];
  if (options.demographics) ids.push(...demographicsModels(demographicsSettings(options)));
  if (options.emotion) ids.push(options.emotionModel ?? DEFAULT_EMOTION_MODEL);
  if (options.selector.liveness) ids.push('antispoof', 'liveness');
  ids.push(...(options.embed?.models ?? []));
  return ids;
}

/**
 * Every model a request runs starts loading now, side by side, instead of one after another as
 * the pipeline reaches it (loads happen once; a failed load is retried and reported where it is used).
 */
function startModelLoads(options: ImageAnalysisOptions, models: ModelRegistry, settings = detectionSettings(options)): void {
  for (const id of modelsOfRequest(options, settings)) models.prepare(id);
}

const detectionSettings = (options: ImageAnalysisOptions): DetectionSettings => ({ ...DETECTION, ...options.detection });

export interface DetectionSettings {
  detector: DetectorId;
  minScore: number;
  fullMinScore: number;
  minMeshScore: number;
  /**
   * a face whose mesh stays below this (after its re-centred retry) gets two more mesh runs on
   * crops shifted sideways, the best kept (face-analyzer.ts SHIFTED_CROPS); 0: none
   */
  shiftedMeshBelow: number;
  rollAngles: number[];
  /** faces smaller than this (image pixels) are never searched: nothing useful can be measured on them */
  minFacePixels: number;
  minFaceFraction?: number;
  /** how the whole-frame runs reach past the frame's edge, for faces it cuts (face-detector.ts) */
  edges: EdgeSearch;
  /** finer passes only for faces down to 1/this of the smallest face found by the coarser runs (face-detector.ts); 0: all */
  smallFaceRatio?: number;
}

export interface ImageAnalysisOptions {
  minHeadScale: number;
  /**
   * every detector pass down to minHeadScale runs, none left out for being far smaller than the
   * faces found (SMALL_FACE_RATIO): for a caller who asked for a minHeadScale itself
   */
  searchEveryScale?: boolean;
  selector: SelectorFlags;
  demographics: boolean;
  emotion: boolean;
  emotionModel?: EmotionModelId;
  keepMesh: boolean;
  /** embeddings to compute per face (recognition) */
  embed?: { models: readonly EmbeddingModelId[]; flip: boolean };
  /** overrides of the tuned detection settings (for evaluation runs) */
  detection?: Partial<DetectionSettings>;
  /**
   * return the photo to store when a face is found: the encoded bytes that were decoded (base64 or
   * URL input), or a JPEG of a decoded input (encoded only then)
   */
  keepEncoded?: boolean;
  /** overrides of the shipped demographics settings (for evaluation runs) */
  demographicsSettings?: Partial<DemographicsSettings>;
}

const demographicsSettings = (options: ImageAnalysisOptions): DemographicsSettings => ({ ...DEMOGRAPHICS, ...options.demographicsSettings });

export interface ImageTimings {
  decode: number;
  detect: number;
  mesh: number;
  demographics: number;
  emotion: number;
  liveness: number;
  embed: number;
  total: number;
}

export interface ImageAnalysis {
  width: number;
  height: number;
  format: string;
  /** largest face first */
  faces: FaceAnalysis[];
  /** the encoded image as read (downloaded or base64-decoded) or a decoded input's JPEG, when `keepEncoded` asked for it; its time is in `timings.total` only */
  encoded?: { bytes: Uint8Array; mimeType: string };
  detector: DetectorStats;
  timings: ImageTimings;
}

export async function analyzeImage(
  input: ImageInput | Uint8Array | TransferredImage,
  options: ImageAnalysisOptions,
  deps: { models: ModelRegistry; crops: CropRenderer; fetch: typeof fetch; formats?: readonly ImageFormat[] },
): Promise<ImageAnalysis> {
  const started = performance.now();
  // the models download (and their sessions start) while the image is fetched and decoded:
  // in a cold start that is most of the wait for ORT's WASM, when the worker is otherwise idle
  startModelLoads(options, deps.models);
  // a decoded input (transferred from the page) is already upright: no decode, no EXIF rotation
  const image = isTransferredImage(input) ? await receiveDecodedImage(input) : await intakeImage(input, { fetch: deps.fetch, formats: deps.formats });
  try {
    const analysis = await analyzeBitmap(image.bitmap, options, deps);
    analysis.format = image.format;
    analysis.timings.decode = analysis.timings.decode + (performance.now() - started - analysis.timings.total);
    // the stored copy: the bytes as read, or a decoded input's JPEG, made only when there is a face to store
    if (options.keepEncoded && analysis.faces.length > 0) {
      analysis.encoded = 'bytes' in image ? { bytes: image.bytes, mimeType: FORMAT_MIME[image.format] } : await encodeBitmap(image.bitmap);
    }
    analysis.timings.total = performance.now() - started;
    return analysis;
  } finally {
    image.bitmap.close();
  }
}

/** The pipeline on an already decoded, upright frame (e.g. a video frame); the caller owns it. */
export async function analyzeBitmap(
  bitmap: ImageBitmap,
  options: ImageAnalysisOptions,
  deps: { models: ModelRegistry; crops: CropRenderer },
): Promise<ImageAnalysis> {
  const started = performance.now();
  const settings = detectionSettings(options);
  startModelLoads(options, deps.models, settings);
  const minFace = Math.max(settings.minFacePixels, options.minHeadScale * Math.min(bitmap.width, bitmap.height));
  const analyzer = new FaceAnalyzer(deps.models, deps.crops);
  const { faces: detections, stats } = await detectFaces(
    bitmap,
    {
      detector: settings.detector,
      minFace,
      minScore: options.selector.full ? settings.fullMinScore : settings.minScore,
      angles: options.selector.roll ? settings.rollAngles : [0],
      minFaceFraction: settings.minFaceFraction,
      edges: settings.edges,
      smallFaceRatio: options.searchEveryScale ? 0 : settings.smallFaceRatio,
      // a weak box opens a finer pass only if the mesh, which judges the answer's faces, takes it for one
      confirmFaces: (faces) => analyzer.areFaces(bitmap, faces, settings.minMeshScore, settings.shiftedMeshBelow),
    },
    deps.models,
    deps.crops,
  );
  const detected = performance.now();
  const analysed = await analyzer.analyzeAll(bitmap, detections, {
    demographics: options.demographics && demographicsSettings(options),
    emotion: options.emotion,
    emotionModel: options.emotionModel,
    embed: options.embed,
    liveness: options.selector.liveness,
    keepMesh: options.keepMesh,
    minMeshScore: settings.minMeshScore,
    shiftedBelow: settings.shiftedMeshBelow,
    // the mesh box of a face the detector found at minFace can be a little smaller
    minBoxHeight: minFace * 0.8,
  });
  const faces = analysed.filter((face): face is FaceAnalysis => face !== undefined);
  faces.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  return {
    width: bitmap.width,
    height: bitmap.height,
    format: 'bitmap',
    faces,
    detector: stats,
    timings: { decode: 0, detect: detected - started, ...analyzer.times, total: performance.now() - started },
  };
}

export function requireFaces(analysis: ImageAnalysis): ImageAnalysis {
  if (analysis.faces.length === 0) throw new EngineError('NO_FACES');
  return analysis;
}
