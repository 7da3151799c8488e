// Who is who across the sampled frames of a video (pure): each face of a frame gets the
// person_id of the track it continues, or a new one. Two cues:
//   - overlap: IoU of the face box with where the track's box is predicted to be now
//     (its last box moved by its last velocity), while the track was seen recently;
//   - appearance: cosine similarity of face embeddings (face-api's 128-d recogniser,
//     L2-normalised) with the track's running mean embedding.
// Overlap keeps identity through motion from frame to frame; appearance vetoes an overlap
// match that is clearly someone else (two people crossing) and re-identifies a person after
// an occlusion or an absence, however they moved meanwhile. Assignment is greedy by score,
// best pairs first, one face per track. See docs/emotion.md.
import { iou, type Box } from '../vision/geometry.ts';

export interface TrackerOptions {
  /** IoU with the predicted box from which overlap alone continues a track */
  minIou: number;
  /**
   * …or nearness: centres at most this many box sizes apart (sizes within 1.5×) — fast motion
   * before the track has a velocity
   */
  maxCentreShift: number;
  /** how long (ms) a track unseen can still be continued by overlap */
  maxGapMs: number;
  /** embeddings less similar than this never continue a track, whatever the overlap */
  vetoSimilarity: number;
  /** embeddings at least this similar continue a track without overlap (re-identification) */
  reidSimilarity: number;
  /** how many recent embeddings the track's mean embedding weighs (exponential window) */
  embeddingWindow: number;
}

/**
 * Thresholds for face-api's recogniser (cosine similarity of L2-normalised descriptors). Its
 * descriptors share a large common component: on the dev set different people score a median
 * 0.84 (99th percentile 0.91), the same person a median 0.96 (docs/accuracy.md); the same face
 * from one sampled frame to the next scores ≥ 0.94 in the test clips, while a camera cut that
 * puts someone else where a face was scores 0.85–0.88. Hence: an overlap match needs ≥ 0.9,
 * a match by appearance alone (no overlap: after an occlusion, a jump) ≥ 0.95.
 */
export const DEFAULT_TRACKER_OPTIONS: TrackerOptions = {
  minIou: 0.2,
  maxCentreShift: 1,
  maxGapMs: 2000,
  vetoSimilarity: 0.9,
  reidSimilarity: 0.95,
  embeddingWindow: 10,
};

export interface Observation {
  box: Box;
  /** L2-normalised embedding, when computed */
  embedding?: ArrayLike<number>;
  /**
   * the track this observation is known to continue (live video: the face was followed from
   * the previous frame's box); it keeps that id whatever the cues say, if the track is free
   */
  continues?: string;
}

interface Track {
  id: string;
  box: Box;
  /** box centre velocity, pixels per ms */
  vx: number;
  vy: number;
  lastMs: number;
  /** unit-length exponential moving average of the embeddings seen */
  embedding?: Float64Array;
  hits: number;
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * 1 when the centres coincide, falling to 0 at `maxShift` box sizes apart (mean of the two
 * boxes' sides); 0 when the sizes differ by more than 1.5×.
 */
export function nearness(a: Box, b: Box, maxShift: number): number {
  const sa = Math.max(a.width, a.height);
  const sb = Math.max(b.width, b.height);
  if (!(sa > 0 && sb > 0) || Math.max(sa, sb) > 1.5 * Math.min(sa, sb)) return 0;
  const d = Math.hypot(a.x + a.width / 2 - b.x - b.width / 2, a.y + a.height / 2 - b.y - b.height / 2);
  return Math.max(0, 1 - d / (maxShift * ((sa + sb) / 2)));
}

function unit(v: Float64Array): Float64Array {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

export class FaceTracker {
  readonly options: TrackerOptions;
  private readonly tracks: Track[] = [];
  private nextId: number;

  constructor(options: Partial<TrackerOptions> = {}, firstId = 1) {
    this.options = { ...DEFAULT_TRACKER_OPTIONS, ...options };
    this.nextId = firstId;
  }

  /** person ids given out so far */
  get count(): number {
    return this.tracks.length;
  }

  private predicted(t: Track, timeMs: number): Box {
    const dt = timeMs - t.lastMs;
    return { ...t.box, x: t.box.x + t.vx * dt, y: t.box.y + t.vy * dt };
  }

  /** How well observation `o` continues track `t` at `timeMs`; undefined when it must not. */
  score(t: Track, o: Observation, timeMs: number): number | undefined {
    const { minIou, maxGapMs, vetoSimilarity, reidSimilarity } = this.options;
    const recent = timeMs - t.lastMs <= maxGapMs;
    const overlap = recent ? Math.max(iou(this.predicted(t, timeMs), o.box), iou(t.box, o.box)) : 0;
    const near = recent ? nearness(t.box, o.box, this.options.maxCentreShift) : 0;
    const similarity = t.embedding && o.embedding ? cosine(t.embedding, o.embedding) : undefined;
    if (similarity !== undefined && similarity < vetoSimilarity) return undefined;
    if (overlap >= minIou) return 1 + overlap + (similarity ?? 0);
    // nearness ranks below any real overlap
    if (near > 0) return 1 + (minIou * near) / 2 + (similarity ?? 0);
    if (similarity !== undefined && similarity >= reidSimilarity) return similarity;
    return undefined;
  }

  /**
   * A camera cut (live video): no track continues by overlap or nearness any more, since a face
   * now at a track's old place is someone else's; appearance can still re-identify.
   */
  cut(): void {
    for (const t of this.tracks) t.lastMs = -Infinity;
  }

  /** The person id of each observation of the frame at `timeMs` (times must not decrease). */
  update(timeMs: number, observations: readonly Observation[]): string[] {
    const trackOf = new Array<number | undefined>(observations.length);
    const usedTracks = new Set<number>();
    observations.forEach((obs, o) => {
      const t = obs.continues === undefined ? -1 : this.tracks.findIndex((k) => k.id === obs.continues);
      if (t >= 0 && !usedTracks.has(t)) {
        trackOf[o] = t;
        usedTracks.add(t);
      }
    });
    const pairs: { t: number; o: number; s: number }[] = [];
    this.tracks.forEach((track, t) => {
      if (usedTracks.has(t)) return;
      observations.forEach((obs, o) => {
        if (trackOf[o] !== undefined) return;
        const s = this.score(track, obs, timeMs);
        if (s !== undefined) pairs.push({ t, o, s });
      });
    });
    pairs.sort((a, b) => b.s - a.s || a.t - b.t || a.o - b.o);
    for (const p of pairs) {
      if (trackOf[p.o] !== undefined || usedTracks.has(p.t)) continue;
      trackOf[p.o] = p.t;
      usedTracks.add(p.t);
    }
    return observations.map((obs, o) => {
      const t = trackOf[o];
      if (t === undefined) {
        const track: Track = { id: String(this.nextId++), box: obs.box, vx: 0, vy: 0, lastMs: timeMs, hits: 1 };
        if (obs.embedding) track.embedding = unit(Float64Array.from(obs.embedding));
        this.tracks.push(track);
        return track.id;
      }
      const track = this.tracks[t]!;
      this.continueTrack(track, obs, timeMs);
      return track.id;
    });
  }

  private continueTrack(track: Track, obs: Observation, timeMs: number): void {
    const dt = timeMs - track.lastMs;
    if (dt > 0 && dt <= this.options.maxGapMs) {
      const cx = (b: Box) => b.x + b.width / 2;
      const cy = (b: Box) => b.y + b.height / 2;
      track.vx = (cx(obs.box) - cx(track.box)) / dt;
      track.vy = (cy(obs.box) - cy(track.box)) / dt;
    } else {
      track.vx = 0;
      track.vy = 0;
    }
    track.box = obs.box;
    track.lastMs = timeMs;
    track.hits++;
    if (obs.embedding) {
      if (!track.embedding) track.embedding = unit(Float64Array.from(obs.embedding));
      else {
        // exponential moving average of unit vectors, renormalised
        const w = 1 / this.options.embeddingWindow;
        for (let i = 0; i < track.embedding.length; i++) track.embedding[i] = (1 - w) * track.embedding[i]! + w * (obs.embedding[i] ?? 0);
        unit(track.embedding);
      }
    }
  }
}
