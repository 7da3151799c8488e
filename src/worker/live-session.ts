// Live video in the vision worker: per stream, faces are followed from frame to frame instead
// of being re-detected. Each followed face's face-mesh crop is cut around where its previous
// mesh was (moved by its last velocity); the mesh model's own face-presence score says whether
// the face is still there. The detector runs only on a schedule, when a face was lost, or while
// nothing is followed. Track ids come from the one tracker of the code base (src/media/tracker.ts,
// also used by /v2/media), fed the boxes of every frame.
import { mediaEmotions } from '../media/metrics.ts';
import { FaceTracker } from '../media/tracker.ts';
import { EMBEDDING } from '../models/catalog.ts';
import type { LiveSessionOptions, LiveWorkerFace, LiveWorkerFrame } from '../live/options.ts';
import type { Candidate } from '../vision/detections.ts';
import { NAMED_LANDMARKS } from '../vision/face-mesh.ts';
import { iou, overlapOfSmaller, type Box } from '../vision/geometry.ts';
import type { CropRenderer, FrameImage } from './crop-renderer.ts';
import { FaceAnalyzer, type FaceAnalysis } from './face-analyzer.ts';
import { runDetectorStep, uprightDetectorSteps, type DetectorStep } from './face-detector.ts';
import { DETECTION, UNPADDED_EDGES } from './image-analysis.ts';
import { SceneCutDetector } from './scene-cut.ts';
import type { ModelRegistry } from './model-registry.ts';
import { VideoFramePlanes } from './video-frame-planes.ts';

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
 * A followed face is kept while the mesh's face-presence score is at least this (after one
 * retry on a re-centred crop, then two on crops shifted sideways: face-analyzer.ts); lower than
 * a new detection's since the face was already
 * confirmed: in the Hamilton audience shot a laughing, tilted face scores 0.37–0.6 on its
 * follow crop while a face that left the crop scores ≤ 0.1.
 */
const FOLLOW_MIN_MESH_SCORE = 0.3;
/**
 * A new face is taken at this mesh score (/detect: 0.65): half-turned faces in a live stream
 * score 0.45–0.65 (Marian Robinson in the audience shot: 0.49), a profile turned away ≤ 0.1,
 * and the detector has already scored it ≥ 0.6.
 */
const NEW_FACE_MIN_MESH_SCORE = 0.45;
/**
 * A followed face whose mesh scores FOLLOW_CHECK_MIN_MESH_SCORE–FOLLOW_MIN_MESH_SCORE is kept when
 * the detector finds it at its place at CONFIRM_MIN_SCORE (detectorConfirms): the score /detect's
 * FULL selector accepts, as the face was already confirmed when first found. Below the floor
 * nothing face-like is in the crop (RETRY_MESH_SCORE in face-analyzer.ts).
 */
const FOLLOW_CHECK_MIN_MESH_SCORE = 0.05;
const CONFIRM_MIN_SCORE = DETECTION.fullMinScore;
/** the confirming detector view's side over the mesh box's */
const CONFIRM_VIEW = 2;
/**
 * Live sweeps keep the unpadded whole-frame runs: with /detect's mirrored pad
 * (DETECTION.edges) test/browser/live.test.ts failed twice — a frame of the synthetic clip without
 * exactly one face, and one track id given to Barack and then Michelle Obama in the Hamilton
 * audience (measured 2026-11-25; the cause not yet isolated).
 */
const LIVE_EDGES = UNPADDED_EDGES;
/** the tracker's nearness reach for live video, in face sizes (see tracker below) */
const LIVE_MAX_CENTRE_SHIFT = 0.5;

/** mean grey difference of 32×24 thumbnails above which the frame is a camera cut (scene-cut.ts; Hamilton: cuts 29–33, motion ≤ 22) */
const CUT_DIFFERENCE = 26;
/** a refreshed embedding is also due when the head turned this much since the last one, degrees */
const REEMBED_YAW_CHANGE = 20;
/** two followed faces overlapping this much are one face (two tracks converged) */
const SAME_FACE_IOU = 0.5;
/** during a face's first second its embedding is refreshed this often (named quickly even if the first look was poor), ms */
const EARLY_REEMBED_MS = 300;
const EARLY_MS = 1000;
/** a face found by the detector is analysed within this long, or dropped (it has moved on) and searched for again, ms */
const PENDING_MS = 250;
const PENDING_FRAMES = 4;
/** a detection the mesh did not take is not analysed again for this long, ms (a profile face would cost a mesh run per detector run) */
const REJECTED_MS = 1000;

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
  /**
   * nearness continues a track only half a face away (media's 1 face: a 5 fps sample lets faces
   * move far): here followed faces carry their id, and only a face lost and found again near
   * its place should continue — not another person found a little later beside where it was
   * (the audience shot: Barack Obama found 300 ms after Michelle's half-turned face 62 px away)
   */
  private readonly tracker = new FaceTracker({ maxCentreShift: LIVE_MAX_CENTRE_SHIFT });
  private lastSweepMs = -Infinity;
  private lostSinceDetect = false;
  /** the detector runs of the current sweep not done yet */
  private sweep: DetectorStep[] = [];
  private plan: { key: string; steps: DetectorStep[] } | undefined;
  /** faces the detector found, to be analysed on the next frames (one per frame) */
  private pending: { candidate: Candidate; atMs: number; waited: number }[] = [];
  /** detections the mesh did not take, skipped until untilMs */
  private rejected: { box: Box; untilMs: number }[] = [];
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
      demographics: false as const,
      emotion,
      emotionModel: this.options.emotionModel,
      liveness: false,
      keepMesh: true,
      minMeshScore: DETECTION.minMeshScore,
      embed: embed ? { models: [EMBEDDING.model], flip: EMBEDDING.flip } : undefined,
    };
  }

  /** The detector's runs for this frame size (whole frame, then finer passes), planned once per size. */
  private detectorSteps(image: { width: number; height: number }): DetectorStep[] {
    const key = `${image.width}x${image.height}`;
    if (this.plan?.key !== key) {
      this.plan = { key, steps: uprightDetectorSteps(image.width, image.height, { detector: DETECTION.detector, minFace: this.minFace(image), edges: LIVE_EDGES }) };
    }
    return this.plan.steps;
  }

  private minFace(image: { width: number; height: number }): number {
    return Math.max(DETECTION.minFacePixels, this.options.minFaceScale * Math.min(image.width, image.height));
  }

  /**
   * One frame: follow every face, then at most one more costly piece of work (a new face found
   * earlier, a refresh, or one detector run), so no frame pays for several; assign track ids.
   * `timeMs` must not decrease.
   */
  async frame(image: FrameImage, timeMs: number): Promise<LiveWorkerFrame> {
    const started = performance.now();
    const difference = this.cuts.difference(image);
    if (difference > CUT_DIFFERENCE) {
      // what the mesh turned down belonged to the shot before (in the Hamilton clip a profile
      // rejected just before the cut hid Lin-Manuel Miranda's face at its place for a second)
      this.rejected = [];
      if (this.followed.length > 0 || this.pending.length > 0) {
        // whatever is now where the faces were is someone else: start over from the detector
        this.followed = [];
        this.pending = [];
        this.sweep = [];
        this.tracker.cut();
        this.lostSinceDetect = true;
      }
    }
    // a face found waits at most PENDING_MS, or PENDING_FRAMES frames at a low frame rate (at
    // 10 fps, a detector run that found 4 faces needs 4 frames to analyse them)
    for (const p of this.pending) p.waited++;
    const fresh = this.pending.filter((p) => timeMs - p.atMs <= PENDING_MS || p.waited <= PENDING_FRAMES);
    // faces found but never analysed: search again soon
    if (fresh.length < this.pending.length) this.lostSinceDetect = true;
    this.pending = fresh;
    this.rejected = this.rejected.filter((r) => timeMs < r.untilMs);
    const recognition = this.options.analyses === 'recognition';
    const emotions = this.options.analyses !== 'boxes';
    const embedDue = (f: Followed) =>
      f.embeddedAtMs === undefined ||
      (timeMs - f.firstMs < EARLY_MS && timeMs - f.embeddedAtMs >= EARLY_REEMBED_MS) ||
      timeMs - f.embeddedAtMs >= this.options.recognizeEveryMs ||
      Math.abs(f.analysis.geometry.yaw - (f.embeddedYaw ?? 0)) > REEMBED_YAW_CHANGE;
    const emotionDue = (f: Followed) => !f.emotion || timeMs - f.emotion.atMs >= this.options.emotionEveryMs;
    const oldest = (key: (f: Followed) => number | undefined) => (a: Followed, b: Followed) => (key(a) ?? -Infinity) - (key(b) ?? -Infinity);

    // the frame's one extra, by priority: a face the detector found on an earlier frame (its
    // mesh, emotions and embedding), a due recognition embedding (the most overdue face), a due
    // emotion refresh (the oldest), else one detector run when detection is wanted
    const newFace = this.followed.length < this.options.maxFaces ? this.pending.shift() : undefined;
    const embedFace = recognition && !newFace ? this.followed.filter(embedDue).sort(oldest((f) => f.embeddedAtMs))[0] : undefined;
    const emotionFaces = new Set<Followed>(
      !emotions || newFace || embedFace
        ? []
        : this.followed.filter(emotionDue).sort(oldest((f) => f.emotion?.atMs)).slice(0, this.options.emotionEveryMs === 0 ? undefined : 1),
    );
    // emotions on every frame were asked for: every face gets them whatever else runs
    if (emotions && this.options.emotionEveryMs === 0) for (const f of this.followed) emotionFaces.add(f);

    // 1. follow every face from its previous mesh
    const next: Followed[] = [];
    const stagesBefore = { ...this.analyzer.times };
    for (const f of this.followed) {
      const dt = Math.min(timeMs - f.timeMs, 200);
      const embed = f === embedFace;
      // a score under the bar gets one more try on a crop re-centred on the mesh's own landmarks;
      // still under it, the face is kept only if the detector finds it there (a half-turned face)
      let a = await this.analyzer.analyze(image, followCandidate(f.analysis, f.vx * dt, f.vy * dt), {
        ...this.analysisOptions(embed, emotionFaces.has(f)),
        minMeshScore: FOLLOW_CHECK_MIN_MESH_SCORE,
        retryBelow: FOLLOW_MIN_MESH_SCORE,
        shiftedBelow: FOLLOW_MIN_MESH_SCORE,
      });
      if (a && a.meshScore < FOLLOW_MIN_MESH_SCORE && !(await this.detectorConfirms(image, a))) a = undefined;
      if (!a || a.box.width < 8 || !onFrame(a.box, image)) {
        this.lostSinceDetect = true;
        continue;
      }
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

    // 2. a face found by the detector on an earlier frame
    const addFace = async ({ candidate, atMs }: { candidate: Candidate; atMs: number }) => {
      const a = await this.analyzer.analyze(image, candidate, {
        ...this.analysisOptions(recognition, emotions),
        minMeshScore: NEW_FACE_MIN_MESH_SCORE,
        shiftedBelow: NEW_FACE_MIN_MESH_SCORE,
      });
      // not a face the mesh takes: not looked at again for a while (unless the detection was old:
      // the face may have moved out of its box meanwhile)
      if (!a) {
        if (timeMs - atMs <= PENDING_MS) this.rejected.push({ box: candidate.box, untilMs: timeMs + REJECTED_MS });
      }
      else if (a.box.height >= this.minFace(image) * 0.8 && !next.some((n) => iou(n.analysis.box, a.box) > SAME_FACE_IOU)) {
        next.push({ analysis: a, timeMs, firstMs: timeMs, vx: 0, vy: 0, embeddedAtMs: recognition ? timeMs : undefined, embeddedYaw: recognition ? a.geometry.yaw : undefined, detected: true, emotion: a.emotion ? { values: a.emotion, atMs: timeMs } : undefined });
      }
    };
    if (newFace) await addFace(newFace);

    // 3. one detector run: a sweep (whole frame, then finer passes, one per frame) starts on its
    // schedule, after a loss, or while nothing is followed
    let detectMs = 0;
    let detectorRan = false;
    if (this.sweep.length === 0 && (next.length === 0 || this.lostSinceDetect || timeMs - this.lastSweepMs >= this.options.detectEveryMs)) {
      this.sweep = [...this.detectorSteps(image)];
      this.lastSweepMs = timeMs;
      this.lostSinceDetect = false;
    }
    const runStep = this.sweep.length > 0 && !newFace && !embedFace && (emotionFaces.size === 0 || next.length === 0 || this.options.emotionEveryMs === 0);
    if (runStep) {
      const t = performance.now();
      const { faces: found } = await runDetectorStep(
        image,
        this.sweep.shift()!,
        { detector: DETECTION.detector, minFace: this.minFace(image), minScore: DETECTION.minScore, edges: LIVE_EDGES },
        this.models,
        this.crops,
      );
      detectMs = performance.now() - t;
      detectorRan = true;
      found.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
      let reseeded = false;
      for (const d of found) {
        // already followed (the mesh box is larger than the detector's, so the detector box lies
        // mostly inside it): re-seeded from the detection when it has drifted (a fast-moving
        // face's follower can slide off it, e.g. onto the chin)
        const known = next.find((n) => overlapOfSmaller(n.analysis.box, d.box) > 0.5);
        if (known) {
          // one re-seed per frame (each is a mesh run): another drifted face waits for the next sweep
          if (reseeded || !drifted(known.analysis, d)) continue;
          reseeded = true;
          const a = await this.analyzer.analyze(image, d, this.analysisOptions(false, false));
          if (a && !next.some((n) => n !== known && iou(n.analysis.box, a.box) > SAME_FACE_IOU)) {
            known.analysis = a;
            known.detected = true;
          }
          continue;
        }
        // as many faces as asked for are followed or waiting: no more (nor a search for them)
        if (next.length + this.pending.length >= this.options.maxFaces) continue;
        // the same box again, not any face inside it: the whole-frame run of the Hamilton audience
        // gives one false box across Barack and Michelle Obama, which hid both of them
        if (this.rejected.some((r) => iou(r.box, d.box) > SAME_FACE_IOU)) continue;
        if (this.pending.some((p) => overlapOfSmaller(p.candidate.box, d.box) > 0.5)) continue;
        // its mesh and the rest on the next frames, one new face per frame
        this.pending.push({ candidate: d, atMs: timeMs, waited: 0 });
      }
      // a frame that followed no face has time for the first new one at once
      if (next.length === 0 && this.pending.length > 0) await addFace(this.pending.shift()!);
    }
    next.sort((a, b) => b.analysis.box.width * b.analysis.box.height - a.analysis.box.width * a.analysis.box.height);
    this.followed = next.slice(0, this.options.maxFaces);

    // 4. track ids from the shared tracker (overlap with each track's last box, embeddings when computed)
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

  /**
   * Whether the detector finds the face a low mesh score leaves in doubt: one run of its nominal
   * 128×128 view on a square twice the mesh box around it (the face at ~45% of the view, where
   * the detector is surest), a box at its place and size. The mesh's presence score falls on
   * half-turned faces the detector still sees (Marian Robinson in the Hamilton audience: mesh
   * 0.1–0.4 once followed, detector ~0.7); a face that has gone gives neither.
   */
  private async detectorConfirms(image: FrameImage, a: FaceAnalysis): Promise<boolean> {
    const side = Math.max(a.box.width, a.box.height);
    const c = centre(a.box);
    const { faces } = await runDetectorStep(
      image,
      { view: { cx: c.x, cy: c.y, size: CONFIRM_VIEW * side, angle: 0 } },
      { detector: DETECTION.detector, minFace: 0, minScore: CONFIRM_MIN_SCORE },
      this.models,
      this.crops,
    );
    this.confirmRuns++;
    return faces.some((d) => {
      const dSide = Math.max(d.box.width, d.box.height) * MESH_PER_DETECTOR_BOX;
      return overlapOfSmaller(a.box, d.box) > 0.5 && dSide > side / 1.6 && dSide < side * 1.6;
    });
  }

  /** detector runs made to confirm a followed face (detectorConfirms), for the frame's timings */
  private confirmRuns = 0;

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

/**
 * The worker's live methods (spread into its comlink API): open a session, send it frames, close it.
 * `afterFrame`: idle work to queue once a frame has been answered (the worker's code-cache
 * warm-up: a page that only watches video otherwise never runs it, and its next visit would
 * start without V8's cached WASM code).
 */
export function liveWorkerApi(
  ready: () => Promise<{ models: ModelRegistry }>,
  crops: CropRenderer,
  afterFrame: (models: ModelRegistry) => void = () => {},
) {
  const sessions = new Map<number, { session: LiveSession; planes: VideoFramePlanes }>();
  let nextId = 1;
  return {
    async liveOpen(options: LiveSessionOptions): Promise<number> {
      const { models } = await ready();
      const id = nextId++;
      sessions.set(id, { session: new LiveSession(options, models, crops), planes: new VideoFramePlanes() });
      return id;
    },

    /**
     * One frame of session `id` (transfer it: the worker closes it). A VideoFrame is read as its
     * YUV planes when it has them, else turned into an ImageBitmap, either way at most `maxSide`
     * a side; `timeMs` is the source's time of the frame.
     */
    async liveFrame(id: number, frame: ImageBitmap | VideoFrame, timeMs: number, maxSide = Infinity): Promise<LiveWorkerFrame> {
      let bitmap: ImageBitmap | undefined;
      try {
        const open = sessions.get(id);
        if (!open) throw new Error(`live session ${id} is closed`);
        let image: FrameImage | undefined;
        if (frame instanceof ImageBitmap) image = frame;
        else {
          image = await open.planes.of(frame, maxSide);
          if (!image) {
            const side = Math.max(frame.displayWidth, frame.displayHeight);
            const scale = side > maxSide ? maxSide / side : 1;
            bitmap = await createImageBitmap(
              frame,
              scale === 1 ? {} : { resizeWidth: Math.round(frame.displayWidth * scale), resizeHeight: Math.round(frame.displayHeight * scale), resizeQuality: 'medium' },
            );
            image = bitmap;
          }
          // the camera's buffer goes back to it now rather than after the analysis
          frame.close();
        }
        return await open.session.frame(image, timeMs);
      } finally {
        frame.close();
        bitmap?.close();
        void ready().then(({ models }) => afterFrame(models), () => {});
      }
    },

    liveClose(id: number): void {
      sessions.delete(id);
    },
  };
}
