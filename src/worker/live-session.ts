// Live video in the vision worker: per stream, faces are followed from frame to frame instead
// of being re-detected. Each followed face's face-mesh crop is cut around where its previous
// mesh was (moved by its last velocity); the mesh model's own face-presence score says whether
// the face is still there. The detector runs only on a schedule, when a face was lost, or while
// nothing is followed. Track ids come from the one tracker of the code base (src/media/tracker.ts,
// also used by /v2/media), fed the boxes of every frame.
import { mediaEmotions } from '../media/metrics.ts';
import { FaceTracker } from '../media/tracker.ts';
import { EMBEDDING } from '../service/recognition-config.ts';
import type { LiveSessionOptions, LiveWorkerFace, LiveWorkerFrame } from '../live/options.ts';
import type { Candidate } from '../vision/detections.ts';
import { NAMED_LANDMARKS } from '../vision/face-mesh.ts';
import { iou, overlapOfSmaller, type Box } from '../vision/geometry.ts';
import type { CropRenderer } from './crop-renderer.ts';
import { FaceAnalyzer, type FaceAnalysis } from './face-analyzer.ts';
import { detectFaces } from './face-detector.ts';
import { DETECTION } from './image-analysis.ts';
import { SceneCutDetector } from './scene-cut.ts';
import type { ModelRegistry } from './model-registry.ts';

/**
 * The follow crop's side over the previous mesh box's side. From a detection the mesh crop is
 * 1.4× the detector box, about 1.2× the mesh box; following uses more margin, since the face
 * moved since (measured on the Hamilton clip: at 1.2× a fast-moving face's box shrank frame
 * after frame until it was lost).
 */
const FOLLOW_CROP = 1.4;
/** the mesh crop is 1.4× the detector box (face-analyzer.ts meshView) */
const MESH_CROP = 1.4;
/** the mesh box is about 1.15× the detector box of the same face (face-analyzer.ts) */
const MESH_PER_DETECTOR_BOX = 1.15;
/**
 * A followed face is kept while the mesh's face-presence score is at least this; lower than
 * a new detection's 0.65 since the face was already confirmed: half-turned and partly covered
 * faces score 0.55–0.65 while a lost face scores below 0.35 (Hamilton audience shot).
 */
const FOLLOW_MIN_MESH_SCORE = 0.5;
/**
 * A new face is taken at this mesh score (/detect: 0.65): half-turned faces in a live stream
 * score 0.55–0.65, and the detector has already scored it ≥ 0.6.
 */
const NEW_FACE_MIN_MESH_SCORE = 0.55;

/** mean grey difference of 32×24 thumbnails above which the frame is a camera cut (scene-cut.ts; Hamilton: cuts 29–33, motion ≤ 22) */
const CUT_DIFFERENCE = 26;
/** a refreshed embedding is also due when the head turned this much since the last one, degrees */
const REEMBED_YAW_CHANGE = 20;
/** two followed faces overlapping this much are one face (two tracks converged) */
const SAME_FACE_IOU = 0.5;
/** during a face's first second its embedding is refreshed this often (named quickly even if the first look was poor), ms */
const EARLY_REEMBED_MS = 300;
const EARLY_MS = 1000;

interface Followed {
  analysis: FaceAnalysis;
  timeMs: number;
  /** box centre velocity, pixels per ms */
  vx: number;
  vy: number;
  /** when this face was first found */
  firstMs: number;
  embeddedAtMs?: number;
  embeddedYaw?: number;
  /** found by the detector in this frame (else followed from the previous one) */
  detected: boolean;
  /** its track id from the previous frame (undefined for a new face) */
  trackId?: string;
  /** the last measured emotions and the frame time they were measured on */
  emotion?: { values: NonNullable<FaceAnalysis['emotion']>; atMs: number };
}

const centre = (b: Box) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });

/** Where to look for a followed face in the next frame: a detector-like candidate from its last mesh. */
export function followCandidate(a: FaceAnalysis, dx = 0, dy = 0): Candidate {
  const c = centre(a.box);
  const side = (Math.max(a.box.width, a.box.height) * FOLLOW_CROP) / MESH_CROP;
  const g = a.geometry;
  // the eye on the image's left first, as the detector gives it (subject's right eye when upright)
  return {
    box: { x: c.x + dx - side / 2, y: c.y + dy - side / 2, width: side, height: side },
    score: a.detection.score,
    keypoints: [g.rightEye, g.leftEye, g.noseTip, g.mouthCenter].map((p) => ({ x: p.x + dx, y: p.y + dy })),
  };
}

export class LiveSession {
  private followed: Followed[] = [];
  private readonly tracker = new FaceTracker();
  private lastDetectMs = -Infinity;
  private lostSinceDetect = false;
  private readonly analyzer: FaceAnalyzer;
  private readonly cuts = new SceneCutDetector();

  constructor(
    readonly options: LiveSessionOptions,
    private readonly models: ModelRegistry,
    private readonly crops: CropRenderer,
  ) {
    this.analyzer = new FaceAnalyzer(models, crops);
  }

  private analysisOptions(embed: boolean, emotion: boolean) {
    return {
      demographics: false,
      emotion,
      emotionModel: this.options.emotionModel,
      liveness: false,
      keepMesh: true,
      minMeshScore: DETECTION.minMeshScore,
      embed: embed ? { models: [EMBEDDING.model], flip: EMBEDDING.flip } : undefined,
    };
  }

  /** One frame: follow, detect if due, assign track ids. `timeMs` must not decrease. */
  async frame(image: ImageBitmap, timeMs: number): Promise<LiveWorkerFrame> {
    const started = performance.now();
    const difference = this.cuts.difference(image);
    if (difference > CUT_DIFFERENCE && this.followed.length > 0) {
      // whatever is now where the faces were is someone else: start over from the detector
      this.followed = [];
      this.tracker.cut();
      this.lostSinceDetect = true;
    }
    const recognition = this.options.analyses === 'recognition';
    // at most one recognition embedding per frame (a new face first, else the most overdue), so
    // no frame pays for several
    let embedBudget = recognition ? 1 : 0;
    const due = (f: Followed) =>
      f.embeddedAtMs === undefined ||
      (timeMs - f.firstMs < EARLY_MS && timeMs - f.embeddedAtMs >= EARLY_REEMBED_MS) ||
      timeMs - f.embeddedAtMs >= this.options.recognizeEveryMs ||
      Math.abs(f.analysis.geometry.yaw - (f.embeddedYaw ?? 0)) > REEMBED_YAW_CHANGE;
    const emotions = this.options.analyses !== 'boxes';
    // emotions: new faces at once; followed faces when due, at most one per frame (oldest first)
    // unless every frame was asked for
    const emotionBudget = !emotions ? 0 : this.options.emotionEveryMs === 0 ? Infinity : 1;
    const emotionDue = (f: Followed) => !f.emotion || timeMs - f.emotion.atMs >= this.options.emotionEveryMs;
    const emotionOrder = [...this.followed].filter(emotionDue).sort((a, b) => (a.emotion?.atMs ?? -Infinity) - (b.emotion?.atMs ?? -Infinity));
    const measureEmotion = new Set(emotionOrder.slice(0, emotionBudget === Infinity ? undefined : emotionBudget));
    const order = [...this.followed].sort((a, b) => (a.embeddedAtMs ?? -Infinity) - (b.embeddedAtMs ?? -Infinity));

    // 1. follow every face from its previous mesh
    const next: Followed[] = [];
    const stagesBefore = { ...this.analyzer.times };
    for (const f of order) {
      const dt = Math.min(timeMs - f.timeMs, 200);
      const embed = embedBudget > 0 && due(f);
      const a = await this.analyzer.analyze(image, followCandidate(f.analysis, f.vx * dt, f.vy * dt), {
        ...this.analysisOptions(embed, measureEmotion.has(f)),
        minMeshScore: 0,
      });
      if (a && a.meshScore < FOLLOW_MIN_MESH_SCORE) {
        this.lostSinceDetect = true;
        continue;
      }
      if (!a || a.box.width < 8 || !onFrame(a.box, image)) {
        this.lostSinceDetect = true;
        continue;
      }
      if (embed) embedBudget--;
      const c0 = centre(f.analysis.box);
      const c1 = centre(a.box);
      const gap = timeMs - f.timeMs;
      const moved: Followed = {
        analysis: a,
        timeMs,
        firstMs: f.firstMs,
        vx: gap > 0 ? (c1.x - c0.x) / gap : 0,
        vy: gap > 0 ? (c1.y - c0.y) / gap : 0,
        embeddedAtMs: embed ? timeMs : f.embeddedAtMs,
        embeddedYaw: embed ? a.geometry.yaw : f.embeddedYaw,
        detected: false,
        trackId: f.trackId,
        emotion: a.emotion ? { values: a.emotion, atMs: timeMs } : f.emotion,
      };
      // two followed faces that converged on one face: keep the one followed longer
      if (next.some((n) => iou(n.analysis.box, a.box) > SAME_FACE_IOU)) continue;
      next.push(moved);
    }

    // 2. the detector: on its schedule, after a loss, or while nothing is followed
    let detectMs = 0;
    const detectorRan = next.length === 0 || this.lostSinceDetect || timeMs - this.lastDetectMs >= this.options.detectEveryMs;
    if (detectorRan) {
      const t = performance.now();
      const minFace = Math.max(DETECTION.minFacePixels, this.options.minFaceScale * Math.min(image.width, image.height));
      const { faces: found } = await detectFaces(
        image,
        { detector: DETECTION.detector, minFace, minScore: DETECTION.minScore, angles: [0] },
        this.models,
        this.crops,
      );
      detectMs = performance.now() - t;
      this.lastDetectMs = timeMs;
      this.lostSinceDetect = false;
      found.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
      for (const d of found) {
        // already followed (the mesh box is larger than the detector's, so the detector box lies
        // mostly inside it): re-seed the follower from the detection when it has drifted
        const known = next.find((n) => overlapOfSmaller(n.analysis.box, d.box) > 0.5);
        if (known) {
          if (!drifted(known.analysis, d)) continue;
          const a = await this.analyzer.analyze(image, d, this.analysisOptions(false, false));
          if (a && !next.some((n) => n !== known && iou(n.analysis.box, a.box) > SAME_FACE_IOU)) {
            if (known.analysis.embeddings) a.embeddings = known.analysis.embeddings;
            known.analysis = a;
            known.detected = true;
          }
          continue;
        }
        if (next.length >= this.options.maxFaces) continue;
        const embed = embedBudget > 0;
        const a = await this.analyzer.analyze(image, d, { ...this.analysisOptions(embed, emotions), minMeshScore: NEW_FACE_MIN_MESH_SCORE });
        if (!a || a.box.height < minFace * 0.8) continue;
        if (next.some((n) => iou(n.analysis.box, a.box) > SAME_FACE_IOU)) continue;
        if (embed) embedBudget--;
        next.push({ analysis: a, timeMs, firstMs: timeMs, vx: 0, vy: 0, embeddedAtMs: embed ? timeMs : undefined, embeddedYaw: embed ? a.geometry.yaw : undefined, detected: true, emotion: a.emotion ? { values: a.emotion, atMs: timeMs } : undefined });
      }
    }
    next.sort((a, b) => b.analysis.box.width * b.analysis.box.height - a.analysis.box.width * a.analysis.box.height);
    this.followed = next.slice(0, this.options.maxFaces);

    // 3. track ids from the shared tracker (overlap with each track's last box, embeddings when computed)
    const ids = this.tracker.update(
      timeMs,
      this.followed.map((f) => ({ box: f.analysis.box, embedding: f.analysis.embeddings?.[EMBEDDING.model], continues: f.trackId })),
    );
    this.followed.forEach((f, i) => (f.trackId = ids[i]));
    const faces = this.followed.map((f, i) => this.face(f, ids[i]!));
    return {
      width: image.width,
      height: image.height,
      faces,
      detectorRan,
      timings: {
        detect: detectMs,
        mesh: this.analyzer.times.mesh - stagesBefore.mesh,
        emotion: this.analyzer.times.emotion - stagesBefore.emotion,
        embed: this.analyzer.times.embed - stagesBefore.embed,
        total: performance.now() - started,
      },
    };
  }

  private face(f: Followed, trackId: string): LiveWorkerFace {
    const a = f.analysis;
    const mesh = a.mesh!;
    const r = (v: number) => Math.round(v * 10) / 10;
    const out: LiveWorkerFace = {
      track_id: trackId,
      box: { x: r(a.box.x), y: r(a.box.y), width: r(a.box.width), height: r(a.box.height) },
      landmarks: Object.fromEntries(NAMED_LANDMARKS.map(([name, i]) => [name, { x: r(mesh[i]!.x), y: r(mesh[i]!.y) }])),
      pose: { yaw: r(a.geometry.yaw), pitch: r(a.geometry.pitch), roll: r(a.geometry.roll) },
      detected: f.detected,
    };
    if (f.emotion) {
      out.emotions = mediaEmotions(f.emotion.values);
      out.emotions_time_ms = f.emotion.atMs;
    }
    if (this.options.mesh) out.mesh = mesh.map((p) => ({ x: r(p.x), y: r(p.y) }));
    // present only on the frame it was computed in
    const e = a.embeddings?.[EMBEDDING.model];
    if (e) out.embedding = e;
    return out;
  }
}

/** A follower has drifted off its face when the detector's box is off-centre or of another size. */
function drifted(a: FaceAnalysis, d: Candidate): boolean {
  const side = Math.max(a.box.width, a.box.height) / MESH_PER_DETECTOR_BOX;
  const dSide = Math.max(d.box.width, d.box.height);
  const shift = Math.hypot(centre(a.box).x - centre(d.box).x, centre(a.box).y - centre(d.box).y);
  return shift > 0.2 * dSide || side > 1.25 * dSide || dSide > 1.25 * side;
}

function onFrame(b: Box, image: { width: number; height: number }): boolean {
  const c = centre(b);
  return c.x >= 0 && c.y >= 0 && c.x < image.width && c.y < image.height;
}

/** The worker's live methods (spread into its comlink API): open a session, send it frames, close it. */
export function liveWorkerApi(ready: () => Promise<{ models: ModelRegistry }>, crops: CropRenderer) {
  const sessions = new Map<number, LiveSession>();
  let nextId = 1;
  return {
    async liveOpen(options: LiveSessionOptions): Promise<number> {
      const { models } = await ready();
      const id = nextId++;
      sessions.set(id, new LiveSession(options, models, crops));
      return id;
    },

    /**
     * One frame of session `id` (transfer it: the worker closes it). A VideoFrame is turned into
     * an ImageBitmap here (downscaled to `maxSide`); `timeMs` is the source's time of the frame.
     */
    async liveFrame(id: number, frame: ImageBitmap | VideoFrame, timeMs: number, maxSide = Infinity): Promise<LiveWorkerFrame> {
      let bitmap: ImageBitmap | undefined;
      try {
        const session = sessions.get(id);
        if (!session) throw new Error(`live session ${id} is closed`);
        if (frame instanceof ImageBitmap) bitmap = frame;
        else {
          const side = Math.max(frame.displayWidth, frame.displayHeight);
          const scale = side > maxSide ? maxSide / side : 1;
          bitmap = await createImageBitmap(
            frame,
            scale === 1 ? {} : { resizeWidth: Math.round(frame.displayWidth * scale), resizeHeight: Math.round(frame.displayHeight * scale), resizeQuality: 'medium' },
          );
        }
        return await session.frame(bitmap, timeMs);
      } finally {
        frame.close();
        bitmap?.close();
      }
    },

    liveClose(id: number): void {
      sessions.delete(id);
    },
  };
}
