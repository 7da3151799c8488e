// Per-frame face analyses → the media object's `frames[]` (pure): tracking (person_id),
// per-person metrics, landmarks, and the per-person demographics consensus. The service feeds
// it one sampled frame at a time, in time order. See docs/emotion.md for every field.
import { clipBox, type Box } from '../vision/geometry.ts';
import { NAMED_LANDMARKS, type FaceGeometry } from '../vision/face-mesh.ts';
import { UNKNOWN } from '../api/field-audit.ts';
import { TRACKING_EMBEDDING } from '../models/catalog.ts';
import {
  ageGroup,
  attentionOf,
  blinkOf,
  distanceOf,
  dwellOf,
  formatTimestamp,
  genderOf,
  mediaEmotions,
  round,
  stepPresence,
  UNMEASURED_GLASSES,
  type Presence,
  type SevenClassProbabilities,
} from './metrics.ts';
import type { MediaFrame, MediaPerson } from './schema.ts';
import { FaceTracker, type TrackerOptions } from './tracker.ts';

/** The parts of the worker's FaceAnalysis this module reads (structurally compatible with it). */
export interface FrameFace {
  box: Box;
  geometry: Pick<FaceGeometry, 'eyeDistance' | 'yaw' | 'pitch' | 'roll' | 'eyeAspect'>;
  mesh?: readonly { x: number; y: number }[];
  demographics?: { age: number; male: number };
  emotion?: SevenClassProbabilities;
  embeddings?: { readonly [model: string]: Float32Array | undefined };
}

export interface FramesBuilderOptions {
  /** output the 49 named landmarks */
  landmarks: boolean;
  /** sampling interval, ms (0 for a still image): what one sighting adds to dwell */
  intervalMs: number;
  /** wall-clock time (epoch ms) of media time 0: start_time/end_time are this plus media time */
  baseEpochMs: number;
  /** media size in pixels (faces are clipped to it; distance uses its width) */
  width: number;
  height: number;
  tracker?: Partial<TrackerOptions>;
}


interface PersonState {
  presence?: Presence;
  /** eye aspect ratios of the sightings so far (blink baseline) */
  eyeAspects: number[];
  ages: number[];
  males: number[];
}

/** What a person entry is before demographics are settled at the end. */
type PendingPerson = Omit<MediaPerson, 'demographics'> & { demographics?: MediaPerson['demographics'] };

const UNKNOWN_EMOTIONS = { anger: UNKNOWN.number, disgust: UNKNOWN.number, fear: UNKNOWN.number, joy: UNKNOWN.number, sadness: UNKNOWN.number, surprise: UNKNOWN.number };

function clippedFace(b: Box, width: number, height: number): MediaPerson['face'] {
  const c = clipBox(b, width, height);
  const [x0, y0] = [Math.round(c.x), Math.round(c.y)];
  return { x: x0, y: y0, width: Math.round(c.x + c.width) - x0, height: Math.round(c.y + c.height) - y0 };
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export class FramesBuilder {
  private readonly tracker: FaceTracker;
  private readonly people = new Map<string, PersonState>();
  private readonly frames: { time: number; people: PendingPerson[] }[] = [];
  /** person ids of the latest frame, in its face order */
  private lastIds: string[] = [];

  constructor(private readonly options: FramesBuilderOptions) {
    this.tracker = new FaceTracker(options.tracker);
  }

  get frameCount(): number {
    return this.frames.length;
  }

  /**
   * Adds the sampled frame at media time `timeMs`. `scale` maps the analysed bitmap's pixels
   * to media pixels (a frame analysed downscaled has scale > 1). Returns the person ids.
   */
  addFrame(timeMs: number, faces: readonly FrameFace[], scale = 1): string[] {
    const o = this.options;
    const index = this.frames.length;
    const sx = (b: Box): Box => ({ x: b.x * scale, y: b.y * scale, width: b.width * scale, height: b.height * scale });
    const ids = this.tracker.update(
      timeMs,
      faces.map((f) => ({ box: sx(f.box), embedding: f.embeddings?.[TRACKING_EMBEDDING] })),
    );
    const people = faces.map((f, i): PendingPerson => {
      const id = ids[i]!;
      const state = this.people.get(id) ?? { ages: [], males: [], eyeAspects: [] };
      this.people.set(id, state);
      const g = f.geometry;
      const attention = attentionOf(g.yaw, g.pitch);
      state.presence = stepPresence(state.presence, index, timeMs, attention);
      if (f.demographics) {
        state.ages.push(f.demographics.age);
        state.males.push(f.demographics.male);
      }
      const person: PendingPerson = {
        person_id: id,
        appearance: { glasses: UNMEASURED_GLASSES },
        distance: distanceOf(g.eyeDistance * scale, g.yaw, o.width),
        // every media analysis asks for emotions; a face without them gets unknowns, never zeros
        emotions: f.emotion ? mediaEmotions(f.emotion) : UNKNOWN_EMOTIONS,
        face: clippedFace(sx(f.box), o.width, o.height),
        pose: { pitch: round(g.pitch, 1), roll: round(g.roll, 1), yaw: round(g.yaw, 1) },
        tracking: {
          attention,
          blink: blinkOf(g.eyeAspect, state.eyeAspects),
          dwell: dwellOf(state.presence, o.intervalMs),
          glances: state.presence.glances,
        },
        start_time: formatTimestamp(o.baseEpochMs + state.presence.firstMs),
        end_time: formatTimestamp(o.baseEpochMs + timeMs),
      };
      state.eyeAspects.push(g.eyeAspect);
      if (o.landmarks && f.mesh) {
        const mesh = f.mesh;
        person.landmarks = NAMED_LANDMARKS.map(([name, i]) => ({
          [name]: { x: Math.round(mesh[i]!.x * scale), y: Math.round(mesh[i]!.y * scale) },
        }));
      }
      return person;
    });
    this.frames.push({ time: Math.round(timeMs), people });
    this.lastIds = ids;
    return ids;
  }

  /** How many demographic estimates a person has so far. */
  demographicSamples(personId: string): number {
    return this.people.get(personId)?.ages.length ?? 0;
  }

  /** True when a person of the latest frame has no demographic estimate yet. */
  latestFrameLacksDemographics(): boolean {
    return this.lastIds.some((id) => this.demographicSamples(id) === 0);
  }

  /**
   * Demographic estimates for the latest frame's faces, computed by a second pass over the
   * same frame (same faces, same order: the pipeline is deterministic on the same pixels).
   */
  supplyDemographics(faces: readonly FrameFace[]): void {
    if (faces.length !== this.lastIds.length) return;
    faces.forEach((f, i) => {
      const state = this.people.get(this.lastIds[i]!);
      if (!state || !f.demographics || state.ages.length > 0) return;
      state.ages.push(f.demographics.age);
      state.males.push(f.demographics.male);
    });
  }

  /**
   * The frames, each person's demographics settled to the consensus of all their estimates
   * (median age → age group, mean male probability → gender), so a person has one age group
   * and one gender in every frame. A person with no estimate at all (the service prevents it
   * by re-analysing such a frame with demographics on) gets "Unknown" for both, never a guess.
   */
  finish(): MediaFrame[] {
    const settled = new Map<string, MediaPerson['demographics']>();
    for (const [id, s] of this.people) {
      settled.set(id, {
        age_group: s.ages.length ? ageGroup(median(s.ages)) : UNKNOWN.string,
        gender: s.males.length ? genderOf(s.males.reduce((a, b) => a + b, 0) / s.males.length) : UNKNOWN.string,
      });
    }
    return this.frames.map((f) => ({
      time: f.time,
      // the interface's field order: person_id, appearance, demographics, distance, …
      people: f.people.map(({ person_id, appearance, ...rest }): MediaPerson => ({
        person_id,
        appearance,
        demographics: settled.get(person_id)!,
        ...rest,
      })),
    }));
  }
}
