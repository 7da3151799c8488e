// Finds faces: runs a detector over the planned views of the image, maps every candidate
// back to image pixels and merges duplicates across views.
import { anchorsForInput } from '../vision/anchors.ts';
import { decodeCandidates, weightedNms, type Candidate } from '../vision/detections.ts';
import { DETECTORS, type DetectorId, type DetectorSpec } from '../vision/detectors.ts';
import { applyAffine, cropToImage, type Box, type Point, type View } from '../vision/geometry.ts';
import type { PadFill } from '../vision/mirror-pad.ts';
import { rgbaToTensor } from '../vision/tensor.ts';
import { paddedPass, planFramePasses, planViews, splitPass, wholeFramePass, zoomedOutView, type FramePass } from '../vision/tiling.ts';
import type { CropRenderer, FrameImage } from './crop-renderer.ts';
import type { ModelRegistry } from './model-registry.ts';

/** how much larger than the frame the fallback view for tight crops is */
const ZOOM_OUT = 1.6;

/**
 * A photo skips a whole-frame pass within this factor of the whole view's scale: every step runs
 * on the same photo and is merged, so the view covers it (a 640×480 photo ran a 160×112 pass at
 * 1.14×; `npm run eval` unchanged without it, the single-face /detect 10 ms faster). Live video
 * keeps the default: its steps run one per frame, and without that pass a large face in
 * test/browser/live.test.ts's Hamilton clip lost its track twice.
 */
const PHOTO_WHOLE_VIEW_MARGIN = 1.25;

/**
 * With a model peer (two runtimes), a photo's pass larger than this many input pixels runs as two
 * strips, one on each. Measured (bench:stages --threads 1, peer A/B, quiet): at 0.12 MP the strips
 * made the 1–3 MP single faces' detect stage 12% slower (their finest pass is ~0.27 MP: 4201 vs
 * 3740 ms over 35 photos) and the peer a net loss there (B/A 0.967); without them 1.035. A 3.3 MP
 * photo's 0.7 MP pass gained (detect 256 vs 287 ms, one photo): strips only from 0.5 MP.
 */
const SPLIT_PASS_PIXELS = 500_000;
/** input rows two strips share: faces up to this high are whole in one (4× the detector's smallest: the next pass sees larger ones) */
const STRIP_OVERLAP = 64;

export interface DetectorOptions {
  detector: DetectorId;
  /** smallest face height to report, image pixels */
  minFace: number;
  minScore: number;
  /** in-plane rotations to search, radians */
  angles: readonly number[];
  /** overrides the detector's measured smallest-face fraction (evaluation runs) */
  minFaceFraction?: number;
  /** faces cut by the frame's edge: how the upright search pads its whole-frame runs (docs/detection.md) */
  edges?: EdgeSearch;
  /**
   * the upright passes run coarse to fine, and a finer pass runs only while the faces it is the
   * first to see (from its smallest on) can be within this factor of the smallest face the
   * coarser runs found; nothing found: every pass runs (0 or undefined: every pass runs, all at once)
   */
  smallFaceRatio?: number;
  /**
   * whether weak faces (merged score under CONFIRM_BELOW) are faces, asked before one would open
   * a finer pass (searchCoarseFirst); without it every merged face counts
   */
  confirmFaces?: FaceCheck;
}

/** For each candidate, whether it is a face (e.g. by the face mesh, as the answer will judge it). */
export type FaceCheck = (faces: readonly Candidate[]) => Promise<boolean[]>;

/**
 * A merged face scoring under this opens a finer pass only once `confirmFaces` says it is a face:
 * a weak false box beside a large face (two at 0.60 in Firefox's decode of an upscaled portrait)
 * otherwise opens the 28-px pass, the costliest of a large photo (205 ms at 8 MP: docs/benchmarks.md).
 */
export const CONFIRM_BELOW = 0.7;

/** How the upright whole-frame runs reach past the frame's edge. */
export interface EdgeSearch {
  /**
   * input pixels added on every side of the whole-frame run (0: none); the finer passes are never
   * padded: a pad costs most there (every pass padded: a 640×480 face's /detect ~1.3× — docs/
   * detection.md), and the faces the frame cuts are mostly large ones, which the whole run finds
   */
  pad: number;
  /** what fills them (src/vision/mirror-pad.ts) */
  fill: PadFill;
  /** the whole frame at the nominal size runs as a padded frame pass too, instead of the square view */
  wholeAsPass: boolean;
  /**
   * the frame's longer side in that pass, input pixels (default the detector's nominal size): a
   * smaller frame keeps the padded pass near the unpadded view's cost, and the faces it is there
   * for — large ones, cut by the edge — stay large enough in it
   */
  wholeSide?: number;
  /** when no run found anything: the whole frame once more, this much padded (a face mostly cut off) */
  fallbackPad?: number;
}

export interface DetectorStats {
  /** detector runs: square views plus whole-frame passes */
  views: number;
  candidates: number;
  /** time spent cutting views and making tensors, and in the detector model */
  cropMs: number;
  inferMs: number;
}

/** Anchor grids by detector and input size (square views, and whole-frame passes of any size). */
const anchorCache = new Map<string, Point[]>();
function anchorsOf(spec: DetectorSpec, width = spec.anchors.inputSize, height = width): Point[] {
  const key = `${spec.model}:${width}x${height}`;
  let anchors = anchorCache.get(key);
  if (!anchors) {
    if (anchorCache.size >= 8) anchorCache.delete(anchorCache.keys().next().value!);
    anchors = anchorsForInput(spec.anchors.layers, width, height);
    anchorCache.set(key, anchors);
  }
  return anchors;
}

/** Splits a combined [anchors x 17] output into logits and 16 regressors per anchor. */
function splitCombined(data: Float32Array): { scores: Float32Array; regressors: Float32Array } {
  const n = data.length / 17;
  const scores = new Float32Array(n);
  const regressors = new Float32Array(n * 16);
  for (let i = 0; i < n; i++) {
    scores[i] = data[i * 17]!;
    regressors.set(data.subarray(i * 17 + 1, i * 17 + 17), i * 16);
  }
  return { scores, regressors };
}

/** Candidates of one detector run, in its input pixels. */
function decodeRun(out: Record<string, { data: Float32Array }>, spec: DetectorSpec, anchors: Point[], minScore: number): Candidate[] {
  const found: Candidate[] = [];
  if ('combined' in spec.outputs) {
    const { scores, regressors } = splitCombined(out[spec.outputs.combined]!.data);
    found.push(...decodeCandidates(scores, regressors, anchors, minScore));
  } else {
    let offset = 0;
    for (const pair of spec.outputs) {
      const scores = out[pair.scores]!.data;
      found.push(...decodeCandidates(scores, out[pair.regressors]!.data, anchors.slice(offset, offset + scores.length), minScore));
      offset += scores.length;
    }
  }
  return found;
}

/** What every detector run of one search shares: the image, the detector, where to run it, and the stats it adds to. */
interface DetectorRun {
  image: FrameImage;
  /** what fills a padded pass's pad */
  fill: PadFill;
  spec: DetectorSpec;
  minScore: number;
  models: ModelRegistry;
  crops: CropRenderer;
  stats: DetectorStats;
}

/** Makes the detector's input from rendered RGBA pixels and runs it, adding both times to `stats`. */
async function runDetector(
  { spec, models, stats }: DetectorRun,
  pixels: () => Uint8ClampedArray,
  width: number,
  height: number,
): Promise<Record<string, { data: Float32Array }>> {
  const t0 = performance.now();
  let filled = t0;
  const out = await models.runFilled(spec.model, [1, height, width, 3], (input) => {
    rgbaToTensor(pixels(), width * height, 'RGB', [-1, 1], input);
    filled = performance.now();
  });
  stats.cropMs += filled - t0;
  stats.inferMs += performance.now() - filled;
  return out;
}

/** One run over the whole frame, scaled (a fully convolutional detector); candidates in image pixels. */
async function detectInFrame(run: DetectorRun, pass: FramePass): Promise<Candidate[]> {
  const { image, spec, crops } = run;
  const pad = pass.pad ?? 0;
  const top = pass.strip?.top ?? 0;
  const out = await runDetector(run, () => crops.renderScaled(image, pass.scale, pass.width, pass.height, pad, run.fill, top), pass.width, pass.height);
  const toImage = (p: Point): Point => ({ x: (p.x - pad) / pass.scale, y: (p.y - pad + top) / pass.scale });
  const whole = pass.strip ? decodeRun(out, spec, anchorsOf(spec, pass.width, pass.height), run.minScore).filter((c) => !cutByStrip(c.box, pass)) : undefined;
  const found = (whole ?? decodeRun(out, spec, anchorsOf(spec, pass.width, pass.height), run.minScore)).map((c) => {
    const origin = toImage(c.box);
    return {
      score: c.score,
      box: { x: origin.x, y: origin.y, width: c.box.width / pass.scale, height: c.box.height / pass.scale },
      keypoints: c.keypoints.map(toImage),
      angle: 0,
    };
  });
  return pad > 0 ? found.filter((c) => centreInside(c.box, image)) : found;
}

/** whether a candidate (strip input pixels) touches a side where the strip cuts the frame: the neighbouring strip holds it whole */
function cutByStrip(b: Box, pass: FramePass): boolean {
  const margin = 2;
  return (pass.strip!.cutAbove && b.y <= margin) || (pass.strip!.cutBelow && b.y + b.height >= pass.height - margin);
}

/**
 * A face found in a pass's pad counts only when its centre is in the frame (within
 * CENTRE_OUTSIDE of its side): a face cut in half by the edge has its centre on it, while the
 * mirror image of a face inside the frame lies at least half a face outside.
 */
const CENTRE_OUTSIDE = 0.1;
function centreInside(b: Box, image: { width: number; height: number }): boolean {
  const slack = CENTRE_OUTSIDE * Math.max(b.width, b.height);
  const cx = b.x + b.width / 2;
  const cy = b.y + b.height / 2;
  return cx >= -slack && cy >= -slack && cx <= image.width + slack && cy <= image.height + slack;
}

async function detectInView(run: DetectorRun, view: View): Promise<Candidate[]> {
  const { image, spec, crops } = run;
  const size = spec.anchors.inputSize;
  const out = await runDetector(run, () => crops.render(image, view, size), size, size);
  const found = decodeRun(out, spec, anchorsOf(spec), run.minScore);
  // back to image pixels; a rotated view's box stays an upright square of the same size
  const toImage = cropToImage(view, size);
  const scale = view.size / size;
  return found.map((c) => {
    const centre = applyAffine(toImage, { x: c.box.x + c.box.width / 2, y: c.box.y + c.box.height / 2 });
    const width = c.box.width * scale;
    const height = c.box.height * scale;
    return {
      score: c.score,
      box: { x: centre.x - width / 2, y: centre.y - height / 2, width, height },
      keypoints: c.keypoints.map((p) => applyAffine(toImage, p)),
      angle: view.angle,
    };
  });
}

/** One planned detector run, square view or whole-frame pass; candidates in image pixels. */
function detectStep(run: DetectorRun, step: DetectorStep): Promise<Candidate[]> {
  return 'view' in step ? detectInView(run, step.view) : detectInFrame(run, step.pass);
}

export async function detectFaces(
  image: FrameImage,
  options: DetectorOptions,
  models: ModelRegistry,
  crops: CropRenderer,
): Promise<{ faces: Candidate[]; stats: DetectorStats }> {
  const spec: DetectorSpec = DETECTORS[options.detector];
  const minFraction = options.minFaceFraction ?? spec.minFaceFraction;
  const tiling = { minFace: options.minFace, detectorMinFraction: minFraction, overlap: 0.3 };
  // upright search with a fully convolutional detector: the whole frame as one square view for
  // large faces, then whole-frame passes for smaller ones (uprightDetectorSteps); rotated search keeps square tiles
  const frameSearch = spec.anySizeStride !== undefined && options.angles.includes(0);
  const tiledAngles = options.angles.filter((a) => !frameSearch || a !== 0);
  const upright = frameSearch ? uprightDetectorSteps(image.width, image.height, options, PHOTO_WHOLE_VIEW_MARGIN) : [];
  const tiled: DetectorStep[] = tiledAngles.length > 0 ? planViews(image.width, image.height, { ...tiling, angles: tiledAngles }).map((view) => ({ view })) : [];
  const stats: DetectorStats = { views: 0, candidates: 0, cropMs: 0, inferMs: 0 };
  const run: DetectorRun = { image, spec, minScore: options.minScore, models, crops, stats, fill: options.edges?.fill ?? 'black' };
  // the steps of one round are rendered now and queued at once, so a model peer can take some
  const runAll = async (round: DetectorStep[]): Promise<Candidate[][]> => {
    const split = round.map((step) => inStrips(step, models.runtimes, spec));
    stats.views += split.reduce((n, steps) => n + steps.length, 0);
    return Promise.all(split.map(async (steps) => (await Promise.all(steps.map((step) => detectStep(run, step)))).flat()));
  };
  const found = await searchCoarseFirst(upright, tiled, runAll, smallestFaceOf(spec, minFraction), options.smallFaceRatio, options.confirmFaces);
  // the order of the candidates, and so the merge, stays the steps' order
  const candidates: Candidate[] = found.flat();
  if (candidates.length === 0) {
    for (const angle of options.angles) {
      stats.views++;
      candidates.push(...(await detectInView(run, zoomedOutView(image.width, image.height, ZOOM_OUT, angle))));
    }
    const edges = options.edges;
    if (frameSearch && edges && edges.pad > 0 && edges.fallbackPad) {
      stats.views++;
      candidates.push(...(await detectInFrame(run, paddedPass(wholeFramePass(image.width, image.height, edges.wholeSide ?? spec.anchors.inputSize, spec.anySizeStride!), edges.fallbackPad))));
    }
  }
  stats.candidates = candidates.length;
  const faces = weightedNms(candidates).filter((c) => c.box.height >= options.minFace);
  return { faces, stats };
}

/** The smallest face (image pixels) a step finds: the detector's smallest at the step's scale. */
export function smallestFaceOf(spec: DetectorSpec, minFraction: number): (step: DetectorStep) => number {
  return (step) => (minFraction * spec.anchors.inputSize) / ('pass' in step ? step.pass.scale : spec.anchors.inputSize / step.view.size);
}

/**
 * Runs `upright` (the whole frame, then frame passes finest first, as uprightDetectorSteps plans
 * them) and `tiled`; with `ratio`, coarse to fine: the whole frame, the coarsest pass and the tiles
 * first, then each finer pass only while its smallest face times `ratio` reaches the smallest face
 * found so far (none found: it runs). A portrait's 28-px pass, most of a large photo's detector
 * time, is left out where the photo's faces are all many times larger. The faces found so far are
 * the candidates merged as the answer merges them (weightedNms): a weak box on part of a face
 * found larger is that face, not a smaller one (the detect stage of 1–12 MP photos 9–14% shorter:
 * docs/benchmarks.md). Results per step, in the steps' order (a skipped pass: none).
 */
export async function searchCoarseFirst(
  upright: DetectorStep[],
  tiled: DetectorStep[],
  runAll: (steps: DetectorStep[]) => Promise<Candidate[][]>,
  smallestFace: (step: DetectorStep) => number,
  ratio: number | undefined,
  confirm?: FaceCheck,
): Promise<Candidate[][]> {
  if (!ratio || upright.length <= 2) return runAll([...upright, ...tiled]);
  const [whole, ...passes] = upright;
  const found: Candidate[][] = new Array(upright.length).fill([]);
  const first = await runAll([whole!, passes.at(-1)!, ...tiled]);
  found[0] = first[0]!;
  found[upright.length - 1] = first[1]!;
  const judged = new Map<string, boolean>();
  for (let i = passes.length - 2; i >= 0; i--) {
    const merged = weightedNms([...found, ...first.slice(2)].flat());
    const reach = smallestFace(passes[i]!) * ratio;
    if (await opensPass(merged, reach, confirm, judged)) found[i + 1] = (await runAll([passes[i]!]))[0]!;
  }
  return [...found, ...first.slice(2)];
}

/**
 * Whether a finer pass whose faces reach `reach` (its smallest face times the ratio) runs: the
 * faces found so far include one that small, or none at all. When only weak faces (under
 * CONFIRM_BELOW) are that small and larger ones exist, `confirm` is asked about those weak ones
 * first (once per box: `judged`), and the ones it finds no face count as nothing.
 */
async function opensPass(merged: readonly Candidate[], reach: number, confirm: FaceCheck | undefined, judged: Map<string, boolean>): Promise<boolean> {
  const key = (c: Candidate) => `${c.box.x},${c.box.y},${c.box.height}`;
  const counted = merged.filter((c) => judged.get(key(c)) !== false);
  if (counted.length === 0) return true;
  const deciding = counted.filter((c) => c.box.height <= reach);
  if (deciding.length === 0) return false;
  const sure = (c: Candidate) => !confirm || c.score >= CONFIRM_BELOW || judged.get(key(c)) === true;
  // rejecting every face found would leave a photo where nothing was found: all passes run then anyway
  if (deciding.some(sure) || deciding.length === counted.length) return true;
  (await confirm!(deciding)).forEach((isFace, i) => judged.set(key(deciding[i]!), isFace));
  return deciding.some((c) => judged.get(key(c)));
}

/** A large pass as one strip per runtime (SPLIT_PASS_PIXELS), so they run at once; anything else as it is. */
function inStrips(step: DetectorStep, runtimes: number, spec: DetectorSpec): DetectorStep[] {
  if (runtimes < 2 || !('pass' in step) || step.pass.width * step.pass.height <= SPLIT_PASS_PIXELS) return [step];
  return splitPass(step.pass, runtimes, STRIP_OVERLAP, spec.anySizeStride ?? 16).map((pass) => ({ pass }));
}

/** One detector run of an upright search: a square view (the whole frame) or a scaled whole-frame pass. */
export type DetectorStep = { view: View } | { pass: FramePass };

/**
 * The upright search of detectFaces() as separate runs (the whole frame as one square view,
 * then the finer whole-frame passes), so a live stream can spread them over frames (pure).
 * Needs a fully convolutional detector (anySizeStride).
 */
export function uprightDetectorSteps(
  width: number,
  height: number,
  options: Pick<DetectorOptions, 'detector' | 'minFace' | 'minFaceFraction' | 'edges'>,
  wholeViewMargin?: number,
): DetectorStep[] {
  const spec: DetectorSpec = DETECTORS[options.detector];
  if (spec.anySizeStride === undefined) throw new Error(`${options.detector} cannot search whole frames`);
  const passes = planFramePasses(width, height, {
    minFace: options.minFace,
    detectorMinFraction: options.minFaceFraction ?? spec.minFaceFraction,
    nominal: spec.anchors.inputSize,
    stride: spec.anySizeStride,
    wholeViewMargin,
  });
  const pad = options.edges?.pad ?? 0;
  const whole: DetectorStep = options.edges?.wholeAsPass
    ? { pass: paddedPass(wholeFramePass(width, height, options.edges.wholeSide ?? spec.anchors.inputSize, spec.anySizeStride), pad) }
    : { view: zoomedOutView(width, height, 1, 0) };
  return [whole, ...passes.map((pass) => ({ pass }))];
}

/** Runs one step of uprightDetectorSteps(): its faces (merged, at least minFace high) in image pixels. */
export async function runDetectorStep(
  image: FrameImage,
  step: DetectorStep,
  options: Pick<DetectorOptions, 'detector' | 'minFace' | 'minScore' | 'edges'>,
  models: ModelRegistry,
  crops: CropRenderer,
): Promise<{ faces: Candidate[]; stats: DetectorStats }> {
  const stats: DetectorStats = { views: 1, candidates: 0, cropMs: 0, inferMs: 0 };
  const run: DetectorRun = { image, spec: DETECTORS[options.detector], minScore: options.minScore, models, crops, stats, fill: options.edges?.fill ?? 'black' };
  const candidates = await detectStep(run, step);
  stats.candidates = candidates.length;
  return { faces: weightedNms(candidates).filter((c) => c.box.height >= options.minFace), stats };
}
