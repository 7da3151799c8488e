// Per-face analysis after detection: face mesh → geometry, quality, and the attribute
// models (age/gender/race, emotion, liveness) on upright crops of the face.
import {
  combineLiveness,
  estimateAge,
  estimateMale,
  faceresAge,
  raceFractions,
  EMOTION_CLASSES,
  type Demographics,
} from '../vision/attributes.ts';
import { ARCFACE_112, dlibView, flipHorizontal, l2Normalize, similarityView } from '../vision/align.ts';
import { withoutDuplicateFaces, type Candidate } from '../vision/detections.ts';
import { faceGeometry, type FaceGeometry, type MeshPoint } from '../vision/face-mesh.ts';
import { applyAffine, boundingBox, clipBox, cropToImage, subView, type Box, type View } from '../vision/geometry.ts';
import { faceQuality, laplacianVariance } from '../vision/quality.ts';
import { rgbaToTensor } from '../vision/tensor.ts';
import { DEFAULT_EMOTION_MODEL, GEAR_SPLIT, type DemographicsSettings, type EmbeddingModelId, type EmotionModelId } from '../models/catalog.ts';
import type { CropRenderer, FrameImage } from './crop-renderer.ts';
import type { ModelRegistry } from './model-registry.ts';

export interface AnalysisOptions {
  /** age, gender, race: which models, at what size (off when false) */
  demographics: DemographicsSettings | false;
  emotion: boolean;
  /** which classifier gives the 7 emotions (chosen by `npm run eval`, docs/accuracy.md) */
  emotionModel?: EmotionModelId;
  liveness: boolean;
  /** keep the 468 mesh points in the result */
  keepMesh: boolean;
  /** a face whose mesh presence score is below this is dropped as a false detection */
  minMeshScore: number;
  /** a first mesh scoring below this (default minMeshScore) gets one more run on a re-centred crop */
  retryBelow?: number;
  /**
   * a mesh still below this after the retry gets runs on crops shifted sideways (SHIFTED_CROPS),
   * the best kept: the mesh's presence score on a half-turned face swings with the crop's framing
   */
  shiftedBelow?: number;
  /** a face whose mesh box is lower than this (pixels) is dropped before its attributes are computed */
  minBoxHeight?: number;
  /** face embeddings to compute, each on its own aligned crop */
  embed?: { models: readonly EmbeddingModelId[]; flip: boolean };
}

export interface FaceAnalysis {
  detection: Candidate;
  /** the face mesh model's own face-presence score */
  meshScore: number;
  /** bounding box of the mesh in image pixels */
  box: Box;
  geometry: FaceGeometry;
  quality: number;
  /** upright square around the face (1.4x the detector box), the base of attribute crops */
  faceView: View;
  mesh?: MeshPoint[];
  demographics?: Demographics;
  /** probabilities of angry, disgust, fear, happy, sad, surprise, neutral */
  emotion?: Record<(typeof EMOTION_CLASSES)[number], number>;
  liveness?: number;
  /** L2-normalised embeddings by model */
  embeddings?: Partial<Record<EmbeddingModelId, Float32Array>>;
}

export interface StageTimes {
  mesh: number;
  demographics: number;
  emotion: number;
  liveness: number;
  embed: number;
}

const EMBEDDING_OUTPUT: Record<EmbeddingModelId, string> = {
  'faceapi-recognition': 'descriptor',
  mobilefacenet: 'embeddings',
  faceres: 'global_pooling/Mean',
};

const MESH_SIZE = 192;
/** GEAR's nominal crop side (docs/detection.md) */
const GEAR_NOMINAL_SIZE = 198;
/** GEAR's crop: this fraction of the face view's side, centred a little above its middle */
const GEAR_CROP = 0.85;
/** face-api's class order → ours */
const FACEAPI_EXPRESSION_ORDER = ['neutral', 'happy', 'sad', 'angry', 'fear', 'disgust', 'surprise'] as const;

/** The face mesh crop: a square 1.4x the detector box, rotated so the eyes are level. */
function meshView(c: Candidate): View {
  const [eyeA, eyeB] = c.keypoints as [{ x: number; y: number }, { x: number; y: number }];
  return {
    cx: c.box.x + c.box.width / 2,
    cy: c.box.y + c.box.height / 2,
    size: 1.4 * Math.max(c.box.width, c.box.height),
    angle: Math.atan2(eyeB.y - eyeA.y, eyeB.x - eyeA.x),
  };
}

/**
 * below this the first mesh crop is not retried (nothing face-like is there); measured: two
 * profile faces of groups/stock-group-1.jpg score 0.09 and 0.52 on the detector's crop and
 * 0.72 and 0.81 re-centred
 */
const RETRY_MESH_SCORE = 0.05;

/**
 * The sideways shifts (fractions of the crop's side) tried for a face whose mesh stays unsure.
 * Measured on the Hamilton audience at 9.1 s, the presence score of crops 110 px wide centred 10 px
 * left / on / 10 px right of the face: Michelle Obama (three-quarter profile) 0.76 / 0.20 / 0.81,
 * Marian Robinson 0.20 / 0.09 / 0.69, Barack Obama 0.99 / 0.51 / 0.97.
 */
const SHIFTED_CROPS = [-0.09, 0.09];
/**
 * below this nothing face-like is in the crop and no shift is tried: in `npm run eval`, 206 of 318
 * unsure detections scored under 0.02 and none of them reached /detect's 0.65 shifted; 26 of the
 * 112 above did (the lowest from 0.034)
 */
const SHIFTED_MIN_MESH_SCORE = 0.02;

/**
 * Face crops per run, for the models that run faster per face in a batch (2 threads, Chromium, ms a
 * face at a batch of 1 / 2 / 4 / 8: facemesh 3.6 / 2.9 / 2.9 / 2.7, AgeGenderNet 5.0 / 4.4 / 4.1 /
 * 4.1, liveness 0.44 / 0.36 / 0.29 / 0.27, the expression model 3.9 / 3.3 / 3.0 / 2.9, the
 * recogniser 8.5 / 7.5 / 7.4 / 7.2, a face's crop and its mirror image counting as two); GEAR (22.4 / 21.6 / 22.1 / 22.2) and antispoof (3.1 /
 * 3.1 / 3.4 / 3.2) gain nothing and run one face at a time. Eight bounds the input and ORT's
 * working memory (a mesh crop is 0.4 MB as input).
 */
const BATCH: Record<string, number> = { facemesh: 8, 'faceapi-age-gender': 8, liveness: 8, 'faceapi-expression': 8, 'faceapi-recognition': 8 };

/** the mesh model's reading of one crop: its face-presence score and the 468 points in image pixels */
interface Mesh {
  score: number;
  points: MeshPoint[];
}

/** A face as the mesh describes it, with the grey crop its quality was measured on. */
interface Described {
  face: FaceAnalysis;
  gray: Float32Array;
}

/** One crop's mesh output (x, y, z per point in crop pixels) mapped back to the image. */
function meshPoints(raw: Float32Array, view: View, score: number): Mesh {
  const toImage = cropToImage(view, MESH_SIZE);
  const zScale = view.size / MESH_SIZE;
  const points: MeshPoint[] = [];
  for (let i = 0; i < raw.length / 3; i++) {
    const p = applyAffine(toImage, { x: raw[i * 3]!, y: raw[i * 3 + 1]! });
    points.push({ x: p.x, y: p.y, z: raw[i * 3 + 2]! * zScale });
  }
  return { score, points };
}

/** A crop moved sideways by `dx` of its side, along its own horizontal (the eyes' line). */
function shiftedView(view: View, dx: number): View {
  return { ...view, cx: view.cx + dx * view.size * Math.cos(view.angle), cy: view.cy + dx * view.size * Math.sin(view.angle) };
}

/** The face mesh crop re-centred on earlier landmarks (the mesh box is ~15% larger than a detector box). */
function meshViewAround(points: readonly MeshPoint[]): View {
  const box = boundingBox(points);
  const g = faceGeometry(points);
  return {
    cx: box.x + box.width / 2,
    cy: box.y + box.height / 2,
    size: (1.4 / 1.15) * Math.max(box.width, box.height),
    angle: (g.roll * Math.PI) / 180,
  };
}

export class FaceAnalyzer {
  readonly times: StageTimes = { mesh: 0, demographics: 0, emotion: 0, liveness: 0, embed: 0 };

  constructor(
    private readonly models: ModelRegistry,
    private readonly crops: CropRenderer,
  ) {}

  /** a model's input crop: side, channels, value range and tensor dims */
  private inputOf(modelId: string, side?: number) {
    const { input } = this.models.entry(modelId);
    if (input.channels === 'features') throw new Error(`${modelId} takes a feature map, not an image crop`);
    const size = side ?? (input.shape[1] as number);
    return { size, channels: input.channels, range: input.range, dims: [1, size, size, input.channels === 'RGB' ? 3 : 1] };
  }

  /**
   * Runs a model on `count` inputs, up to its BATCH size per run (in a reused buffer); `write`
   * fills input i. Each input's outputs, in order.
   */
  private async runEach(modelId: string, count: number, write: (i: number, input: Float32Array<ArrayBuffer>) => void, side?: number): Promise<Record<string, Float32Array>[]> {
    const { dims } = this.inputOf(modelId, side);
    const item = dims[1]! * dims[2]! * dims[3]!;
    // with a model peer the inputs are split over at least as many runs as there are runtimes, so
    // both take part (a group's mesh stage is otherwise one run of up to 8 crops on one runtime)
    const batchSize = Math.min(BATCH[modelId] ?? 1, Math.ceil(count / this.models.runtimes));
    // every batch is filled now (in order) and queued at once, so a model peer can take some
    const batches: Promise<Record<string, Float32Array>[]>[] = [];
    for (let start = 0; start < count; start += batchSize) {
      const n = Math.min(batchSize, count - start);
      const run = this.models.runFilled(modelId, [n, ...dims.slice(1)], (input) => {
        for (let i = 0; i < n; i++) write(start + i, input.subarray(i * item, (i + 1) * item));
      });
      batches.push(run.then((out) => Array.from({ length: n }, (_, i) => Object.fromEntries(Object.entries(out).map(([name, { data }]) => [name, data.subarray((i * data.length) / n, ((i + 1) * data.length) / n)])))));
    }
    return (await Promise.all(batches)).flat();
  }

  /** Runs a model on crops of several views (batched: runEach); each view's outputs. */
  private runViews(image: FrameImage, views: readonly View[], modelId: string, side?: number): Promise<Record<string, Float32Array>[]> {
    const { size, channels, range } = this.inputOf(modelId, side);
    return this.runEach(modelId, views.length, (i, input) => rgbaToTensor(this.crops.render(image, views[i]!, size), size * size, channels, range, input), side);
  }

  /** Face meshes of several crops (batched: BATCH). */
  private async meshes(image: FrameImage, views: readonly View[]): Promise<Mesh[]> {
    const outputs = await this.runViews(image, views, 'facemesh');
    return outputs.map((out, i) => meshPoints(out.output_mesh!, views[i]!, out.output_faceflag![0]!));
  }

  /**
   * Each detection's mesh, or undefined when the mesh model says it is not a face; a borderline
   * score often comes from a detector box a little off the face, so those get one more mesh run on
   * a crop re-centred on their own landmarks (batched too).
   */
  private async meshAll(image: FrameImage, detections: readonly Candidate[], minMeshScore: number, retryBelow = minMeshScore, shiftedBelow = 0): Promise<(Mesh | undefined)[]> {
    const t = performance.now();
    const views = detections.map(meshView);
    const first = await this.meshes(image, views);
    const retry = first.flatMap((m, i) => (m.score < retryBelow && m.score >= RETRY_MESH_SCORE ? [i] : []));
    const again = await this.meshes(image, retry.map((i) => meshViewAround(first[i]!.points)));
    retry.forEach((i, k) => {
      if (again[k]!.score > first[i]!.score) first[i] = again[k]!;
    });
    const unsure = first.flatMap((m, i) => (m.score < shiftedBelow && m.score >= SHIFTED_MIN_MESH_SCORE ? [i] : []));
    const shifted = await this.meshes(image, unsure.flatMap((i) => SHIFTED_CROPS.map((dx) => shiftedView(views[i]!, dx))));
    unsure.forEach((i, k) => {
      for (const m of shifted.slice(k * SHIFTED_CROPS.length, (k + 1) * SHIFTED_CROPS.length)) if (m.score > first[i]!.score) first[i] = m;
    });
    this.times.mesh += performance.now() - t;
    return first.map((m) => (m.score >= minMeshScore ? m : undefined));
  }

  /**
   * Whether the mesh model takes each detection for a face, as analyzeAll judges it (retries
   * included); for the detector's search, so its time is the detect stage's, not the mesh stage's.
   */
  async areFaces(image: FrameImage, detections: readonly Candidate[], minMeshScore: number, shiftedBelow = 0): Promise<boolean[]> {
    const meshTime = this.times.mesh;
    const meshes = await this.meshAll(image, detections, minMeshScore, minMeshScore, shiftedBelow);
    this.times.mesh = meshTime;
    return meshes.map((mesh) => mesh !== undefined);
  }

  /**
   * Analyses detected faces, one stage at a time over all of them (so models that gain from a
   * batch get one: BATCH); undefined where the mesh model says it is not a face or its mesh box is
   * below minBoxHeight (then no attribute model runs for it).
   */
  async analyzeAll(image: FrameImage, detections: readonly Candidate[], options: AnalysisOptions): Promise<(FaceAnalysis | undefined)[]> {
    const meshes = await this.meshAll(image, detections, options.minMeshScore, options.retryBelow, options.shiftedBelow);
    // compared as seen in the frame: a face cut by the edge has one box there, whatever its two meshes guessed beyond it
    const described = withoutDuplicateFaces(
      meshes.map((mesh, i) => mesh && this.describe(image, detections[i]!, mesh, options.keepMesh)),
      (d) => clipBox(d.face.box, image.width, image.height),
      (d) => d.face.meshScore,
    );
    const keep = (d: Described | undefined): d is Described => d !== undefined && d.face.box.height >= (options.minBoxHeight ?? 0);
    const kept = described.filter(keep);
    const found = kept.map((d) => d.face);
    if (found.length > 0) {
      // the stages are independent: all their runs queue together (a model peer takes its share;
      // alone, the runs go one after another as before, and each stage's time overlaps the others')
      await Promise.all([
        options.demographics && this.addDemographics(image, found, options.demographics),
        options.emotion && this.addEmotions(image, kept, options.emotionModel ?? DEFAULT_EMOTION_MODEL),
        options.liveness && this.addLiveness(image, found),
        options.embed && options.embed.models.length > 0 && this.addEmbeddings(image, found, options.embed),
      ]);
    }
    return described.map((d) => (keep(d) ? d.face : undefined));
  }

  /** Analyses one detected face; undefined when the mesh model says it is not a face. */
  async analyze(image: FrameImage, detection: Candidate, options: AnalysisOptions): Promise<FaceAnalysis | undefined> {
    return (await this.analyzeAll(image, [detection], options))[0];
  }

  /** What the mesh gives: geometry, the box, the attribute crop and the quality (and the grey crop it was judged on). */
  private describe(image: FrameImage, detection: Candidate, { score: meshScore, points }: Mesh, keepMesh: boolean): Described {
    const geometry = faceGeometry(points);
    const box = boundingBox(points);
    // attribute crops: upright and centred on the mesh; the mesh box is ~15% larger than the
    // detector box the attribute models were trained around at 1.4x, hence 1.2x here
    const faceView: View = {
      cx: box.x + box.width / 2,
      cy: box.y + box.height / 2,
      size: 1.2 * Math.max(box.width, box.height),
      angle: (geometry.roll * Math.PI) / 180,
    };
    // the face as 64×64 grey levels 0..255: its sharpness, and the small emotion model's input
    const gray = rgbaToTensor(this.crops.render(image, faceView, 64), 64 * 64, 'gray', [0, 255]);
    const quality = faceQuality({
      sharpness: laplacianVariance(gray, 64, 64),
      eyeDistance: geometry.eyeDistance,
      yaw: geometry.yaw,
      pitch: geometry.pitch,
      score: detection.score,
    });
    const analysis: FaceAnalysis = { detection, meshScore, box, geometry, quality, faceView };
    if (keepMesh) analysis.mesh = points;
    return { face: analysis, gray };
  }

  private async addDemographics(image: FrameImage, faces: FaceAnalysis[], settings: DemographicsSettings): Promise<void> {
    const t = performance.now();
    const gearSide = settings.gearKeepScale ? (GEAR_CROP * settings.gearInputSize) / GEAR_NOMINAL_SIZE : GEAR_CROP;
    const gearViews = faces.map((f) => subView(f.faceView, 0.5, 0.45, gearSide));
    const [gear, second] = await Promise.all([
      this.splitsGear(faces.length, settings.gearInputSize)
        ? Promise.all(gearViews.map((view) => this.gearInParts(image, view)))
        : this.runViews(image, gearViews, 'gear', settings.gearInputSize),
      this.ageGender(image, faces, settings),
    ]);
    faces.forEach((face, i) => {
      face.demographics = {
        age: estimateAge(gear[i]!.age_output!, second?.[i]!.age, settings.secondModelAge),
        male: estimateMale(gear[i]!.gender_output!, second?.[i]!.male),
        race: raceFractions(gear[i]!.race_output!),
      };
    });
    this.times.demographics += performance.now() - t;
  }

  /**
   * Whether GEAR runs as its two parts (GEAR_SPLIT): with more runtimes than faces (a single face
   * on a one-thread page with a model peer) a face's GEAR would otherwise keep one runtime busy
   * while the other idles; only at the side the parts are built for, once both have loaded.
   */
  private splitsGear(faces: number, side: number): boolean {
    return faces < this.models.runtimes && side === GEAR_SPLIT.inputSize && this.models.isReady(GEAR_SPLIT.head) && this.models.isReady(GEAR_SPLIT.tail);
  }

  /**
   * GEAR's outputs for one crop from its parts: the head on the crop's two row windows (queued
   * together, so each runtime takes one), then the tail on their feature maps joined, queued ahead
   * of other waiting runs (the answer waits for it). The same numbers as the whole model.
   */
  private async gearInParts(image: FrameImage, view: View): Promise<Record<string, Float32Array>> {
    const { size, channels, range } = this.inputOf('gear', GEAR_SPLIT.inputSize);
    const pixels = this.crops.render(image, view, size);
    // each window's rows straight from the crop's pixels (both filled now, before anything renders again)
    const halves = await Promise.all(
      GEAR_SPLIT.windows.map(([start, end]) =>
        this.models.runFilled(GEAR_SPLIT.head, [1, end - start, size, 3], (input) => rgbaToTensor(pixels.subarray(start * size * 4, end * size * 4), (end - start) * size, channels, range, input)),
      ),
    );
    const [, , width, depth] = halves[0]!.features!.dims as [number, number, number, number];
    const half = GEAR_SPLIT.rowsEach * width * depth;
    const out = await this.models.runFilled(
      GEAR_SPLIT.tail,
      [1, halves.length * GEAR_SPLIT.rowsEach, width, depth],
      (input) => halves.forEach((h, i) => input.set(h.features!.data.subarray(0, half), i * half)),
      true,
    );
    return Object.fromEntries(Object.entries(out).map(([name, { data }]) => [name, data]));
  }

  private async addEmotions(image: FrameImage, faces: readonly Described[], model: EmotionModelId): Promise<void> {
    const t = performance.now();
    if (model === 'emotion') {
      for (const { face, gray } of faces) {
        const probs = (await this.models.run('emotion', gray.map((v) => v / 127.5 - 1), [1, 64, 64, 1])).emotion!.data;
        face.emotion = Object.fromEntries(EMOTION_CLASSES.map((name, i) => [name, probs[i]!])) as FaceAnalysis['emotion'];
      }
    } else {
      const outputs = await this.runViews(image, faces.map((d) => d.face.faceView), 'faceapi-expression');
      faces.forEach(({ face }, k) => {
        const probs = outputs[k]!.expressions!;
        face.emotion = Object.fromEntries(FACEAPI_EXPRESSION_ORDER.map((name, i) => [name, probs[i]!])) as FaceAnalysis['emotion'];
      });
    }
    this.times.emotion += performance.now() - t;
  }

  private async addLiveness(image: FrameImage, faces: FaceAnalysis[]): Promise<void> {
    const t = performance.now();
    const views = faces.map((f) => f.faceView);
    const [real, live] = await Promise.all([this.runViews(image, views, 'antispoof'), this.runViews(image, views, 'liveness')]);
    faces.forEach((face, i) => (face.liveness = combineLiveness(real[i]!.activation_4![0]!, live[i]!.activation_6![0]!)));
    this.times.liveness += performance.now() - t;
  }

  private async addEmbeddings(image: FrameImage, faces: FaceAnalysis[], embed: NonNullable<AnalysisOptions['embed']>): Promise<void> {
    const t = performance.now();
    for (const face of faces) face.embeddings = {};
    await Promise.all(
      embed.models.map(async (id) => {
        const found = await this.embeddings(image, id, faces.map((f) => this.alignedView(id, f.geometry, f.faceView)), embed.flip);
        faces.forEach((face, i) => (face.embeddings![id] = found[i]!));
      }),
    );
    this.times.embed += performance.now() - t;
  }

  /** The second age and gender model's reading of each face, if the settings name one. */
  private async ageGender(image: FrameImage, faces: FaceAnalysis[], settings: DemographicsSettings): Promise<{ age: number; male: number }[] | undefined> {
    const views = faces.map((f) => f.faceView);
    switch (settings.ageGender) {
      case 'none':
        return undefined;
      case 'faceres':
        return (await this.runViews(image, views, 'faceres', settings.faceresInputSize)).map((out) => ({ age: faceresAge(out['age_pred/Softmax:0']!), male: out['gender_pred/Sigmoid:0']![0]! }));
      case 'faceapi-age-gender':
        return (await this.runViews(image, views, 'faceapi-age-gender')).map((out) => ({ age: out.age![0]!, male: out.gender![0]! }));
    }
  }

  /** Each embedding model's own canonical crop. */
  private alignedView(id: EmbeddingModelId, g: FaceGeometry, faceView: View): View {
    switch (id) {
      case 'faceapi-recognition':
        return dlibView(g.leftEye, g.rightEye, g.mouthCenter);
      case 'mobilefacenet':
        return similarityView([g.leftEye, g.rightEye, g.noseTip, g.mouthLeft, g.mouthRight], ARCFACE_112, 112);
      case 'faceres':
        return faceView;
    }
  }

  /**
   * The L2-normalised embedding of each view's crop; with flip, the mean of the crop's and its
   * mirror image's (the two in the same batch).
   */
  private async embeddings(image: FrameImage, id: EmbeddingModelId, views: readonly View[], flip: boolean): Promise<Float32Array[]> {
    const { size, channels, range, dims } = this.inputOf(id);
    const copies = flip ? 2 : 1;
    // the crop is rendered once; its mirror image is made from it (a batch may end between the two)
    let crop: Float32Array | undefined;
    const outputs = await this.runEach(id, views.length * copies, (i, input) => {
      if (i % copies === 1) return input.set(flipHorizontal(crop!, dims[1]!, dims[3]!));
      rgbaToTensor(this.crops.render(image, views[i / copies]!, size), size * size, channels, range, input);
      if (flip) crop = input.slice();
    });
    const output = EMBEDDING_OUTPUT[id];
    return views.map((_, k) => {
      const plain = l2Normalize(outputs[k * copies]![output]!);
      if (!flip) return plain;
      const mirrored = l2Normalize(outputs[k * copies + 1]![output]!);
      return l2Normalize(plain.map((v, i) => v + mirrored[i]!));
    });
  }
}
