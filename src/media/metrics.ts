// The per-person metrics of the emotion analysis (v2) interface, as pure functions: emotion
// mapping, age group, gender, attention, blink, distance, dwell, glances and the timestamp
// format. Every definition here is documented in docs/emotion.md; change both together.
import { UNKNOWN } from '../api/field-audit.ts';
import type { EMOTION_CLASSES } from '../vision/attributes.ts';

// ---------------------------------------------------------------- emotions

/** The six emotions of the interface, in its order. */
export const EMOTION_NAMES = ['anger', 'disgust', 'fear', 'joy', 'sadness', 'surprise'] as const;
export type EmotionName = (typeof EMOTION_NAMES)[number];
export type Emotions = Record<EmotionName, number>;

/** The classifier's seven classes (angry, disgust, fear, happy, sad, surprise, neutral) as probabilities. */
export type SevenClassProbabilities = Record<(typeof EMOTION_CLASSES)[number], number>;

/** Which classifier class each interface emotion is; `neutral` has no interface field (it is the remainder). */
export const EMOTION_CLASS_OF: Readonly<Record<EmotionName, Exclude<(typeof EMOTION_CLASSES)[number], 'neutral'>>> = {
  anger: 'angry',
  disgust: 'disgust',
  fear: 'fear',
  joy: 'happy',
  sadness: 'sad',
  surprise: 'surprise',
};

export const round = (v: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(v * f) / f;
};
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * The 7-class softmax → the six interface emotions on 0–100 (percent of probability mass,
 * two decimals). The probabilities are renormalised to sum 1 first; `neutral` is what the six
 * leave: 100 − their sum (see neutralOf).
 */
export function mediaEmotions(p: SevenClassProbabilities): Emotions {
  const total = Object.values(p).reduce((s, v) => s + (Number.isFinite(v) && v > 0 ? v : 0), 0);
  const out = {} as Emotions;
  for (const name of EMOTION_NAMES) {
    const v = p[EMOTION_CLASS_OF[name]];
    out[name] = total > 0 && Number.isFinite(v) && v > 0 ? clamp(round((100 * v) / total, 2), 0, 100) : 0;
  }
  return out;
}

/** The neutral share implied by six emotions: 100 − their sum, never below 0. */
export function neutralOf(e: Emotions): number {
  return Math.max(0, round(100 - EMOTION_NAMES.reduce((s, n) => s + e[n], 0), 2));
}

/** Valence groups of analytics' emotion_score: joy is positive; surprise counts with neutral. */
export const NEGATIVE_EMOTIONS: readonly EmotionName[] = ['anger', 'disgust', 'fear', 'sadness'];
export const POSITIVE_EMOTIONS: readonly EmotionName[] = ['joy'];

/** emotion_score: positive = joy, negative = anger + disgust + fear + sadness, neutral = the rest (0–100, sum 100). */
export function emotionScore(e: Emotions): { negative: number; neutral: number; positive: number } {
  const negative = clamp(round(NEGATIVE_EMOTIONS.reduce((s, n) => s + e[n], 0), 2), 0, 100);
  const positive = clamp(round(POSITIVE_EMOTIONS.reduce((s, n) => s + e[n], 0), 2), 0, 100 - negative);
  return { negative, neutral: round(Math.max(0, 100 - negative - positive), 2), positive };
}

// ---------------------------------------------------------------- demographics, appearance

export const AGE_GROUPS = ['Child', 'Young Adult', 'Adult', 'Senior'] as const;
/** a person with no age estimate (the service prevents it; never a guessed group) */
export type AgeGroup = (typeof AGE_GROUPS)[number] | typeof UNKNOWN.string;
/** lower age bounds (years) of the groups after Child */
export const AGE_GROUP_FROM = { 'Young Adult': 18, Adult: 35, Senior: 60 } as const;

export function ageGroup(years: number): AgeGroup {
  if (years >= AGE_GROUP_FROM.Senior) return 'Senior';
  if (years >= AGE_GROUP_FROM.Adult) return 'Adult';
  if (years >= AGE_GROUP_FROM['Young Adult']) return 'Young Adult';
  return 'Child';
}

export const GENDERS = ['Male', 'Female'] as const;
export type Gender = (typeof GENDERS)[number] | typeof UNKNOWN.string;
/** analytics' numeric gender code; -1 for a person never estimated */
export const GENDER_CODE: Readonly<Record<Gender, number>> = { Male: 0, Female: 1, Unknown: UNKNOWN.number };

/** male probability 0..1 → Male when ≥ 0.5 */
export function genderOf(male: number): Gender {
  return male >= 0.5 ? 'Male' : 'Female';
}

/**
 * The interface's glasses values are "No"/"Yes" (codes 0/1), but no model here detects glasses:
 * every person is reported "Unknown" (code -1), never a made-up "No" (docs/emotion.md).
 */
export const GLASSES_VALUES = ['No', 'Yes', UNKNOWN.string] as const;
export type Glasses = (typeof GLASSES_VALUES)[number];
export const GLASSES_CODE: Readonly<Record<Glasses, number>> = { No: 0, Yes: 1, Unknown: UNKNOWN.number };
export const UNMEASURED_GLASSES: Glasses = UNKNOWN.string;

// ---------------------------------------------------------------- attention, blink, distance

export const ATTENTION = {
  /**
   * The face mesh's pitch for a face looking straight at the camera: the median over the
   * frontal portraits of the dev set is −7° (the mesh's forehead–chin line leans back).
   */
  pitchAtCameraDeg: -7,
  /** head turned (combined yaw/pitch) at most this many degrees from the camera: 100 */
  fullWithinDeg: 10,
  /** this many degrees or more: 0 */
  zeroFromDeg: 45,
  /** a person is "attentive" (counts toward glances) at this attention or more */
  attentiveFrom: 50,
} as const;

/**
 * Attention 0–100 from head pose: 100 while the head points within 10° of the camera, falling
 * linearly to 0 at 45°, where the angle is √(yaw² + (pitch − pitchAtCamera)²) in degrees.
 * One decimal.
 */
export function attentionOf(yawDeg: number, pitchDeg: number): number {
  const off = Math.hypot(yawDeg, pitchDeg - ATTENTION.pitchAtCameraDeg);
  if (!Number.isFinite(off)) return 0;
  return round(100 * clamp((ATTENTION.zeroFromDeg - off) / (ATTENTION.zeroFromDeg - ATTENTION.fullWithinDeg), 0, 1), 1);
}

export function isAttentive(attention: number): boolean {
  return attention >= ATTENTION.attentiveFrom;
}

export const BLINK = {
  /** eye aspect ratio (lid gap / eye width, mean of both eyes) below which eyes are closed, whoever it is */
  closedBelow: 0.1,
  /** …or below this fraction of the person's own typical (median) ratio so far */
  ofTypical: 0.45,
  /** the person's typical ratio counts once this many earlier sightings exist */
  minHistory: 3,
} as const;

/**
 * Blink "yes" when the eyes are closed in this frame: the eye aspect ratio is below 0.1, or
 * below 45% of the median of this person's earlier ratios (with at least 3 of them). Open eyes
 * measure 0.2–0.4 on the dev set, laughing squints down to 0.14.
 */
export function blinkOf(eyeAspect: number, earlier: readonly number[] = []): 'yes' | 'no' {
  if (!(eyeAspect >= BLINK.closedBelow)) return 'yes';
  if (earlier.length >= BLINK.minHistory) {
    const s = [...earlier].sort((a, b) => a - b);
    const m = s.length >> 1;
    const typical = s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
    if (eyeAspect < BLINK.ofTypical * typical) return 'yes';
  }
  return 'no';
}

export const DISTANCE = {
  /** adult mean interpupillary distance, metres */
  interpupillaryM: 0.063,
  /** nominal horizontal field of view of the camera, degrees (a typical webcam / phone main camera) */
  horizontalFovDeg: 60,
  /** yaw beyond this is not corrected further (foreshortening estimates explode) */
  maxYawCorrectionDeg: 60,
} as const;

/**
 * Camera-to-face distance in metres (two decimals), pinhole model: focal length in pixels
 * f = (frame width / 2) / tan(HFOV / 2); distance = IPD × f / (eye distance in pixels /
 * cos(yaw)). The eye centres are the means of the mesh eye contours (≈ the pupils).
 */
export function distanceOf(eyeDistancePx: number, yawDeg: number, frameWidthPx: number): number {
  if (!(eyeDistancePx > 0) || !(frameWidthPx > 0)) return 0;
  const focal = frameWidthPx / 2 / Math.tan((DISTANCE.horizontalFovDeg * Math.PI) / 360);
  const yaw = (Math.min(Math.abs(yawDeg) || 0, DISTANCE.maxYawCorrectionDeg) * Math.PI) / 180;
  const frontal = eyeDistancePx / Math.cos(yaw);
  return round((DISTANCE.interpupillaryM * focal) / frontal, 2);
}

// ---------------------------------------------------------------- presence: dwell and glances

/** What is remembered about one person between sampled frames. */
export interface Presence {
  /** sampled frames the person was seen in so far */
  seen: number;
  /** media time (ms) of the first and of the latest sighting */
  firstMs: number;
  lastMs: number;
  /** whether the person was attentive at the latest sighting */
  attentive: boolean;
  /** sampled-frame index of the latest sighting */
  lastIndex: number;
  glances: number;
}

/**
 * One more sighting at sampled frame `index` (media time `timeMs`) with this attention.
 * - dwell = sightings so far × the sampling interval, in seconds: the time the person was
 *   actually in view (each sample stands for one interval of video; 0 for a still image).
 * - glances = how many times attention began: the person is attentive now and was not at the
 *   previous sampled frame (not attentive, or not in view).
 */
export function stepPresence(previous: Presence | undefined, index: number, timeMs: number, attention: number): Presence {
  const attentive = isAttentive(attention);
  const wasAttentive = previous !== undefined && previous.lastIndex === index - 1 && previous.attentive;
  return {
    seen: (previous?.seen ?? 0) + 1,
    firstMs: previous?.firstMs ?? timeMs,
    lastMs: timeMs,
    attentive,
    lastIndex: index,
    glances: (previous?.glances ?? 0) + (attentive && !wasAttentive ? 1 : 0),
  };
}

export function dwellOf(p: Presence, intervalMs: number): number {
  return round((p.seen * intervalMs) / 1000, 3);
}

// ---------------------------------------------------------------- time

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const pad = (v: number, n: number) => String(v).padStart(n, '0');

/** Epoch milliseconds (fractions allowed) → `YYYY-Mon-DD HH:MM:SS.ffffff`, UTC, microseconds. */
export function formatTimestamp(epochMs: number): string {
  const micros = Math.round(epochMs * 1000);
  const wholeMs = Math.floor(micros / 1_000_000) * 1000;
  const d = new Date(wholeMs);
  const fraction = micros - wholeMs * 1000;
  return (
    `${pad(d.getUTCFullYear(), 4)}-${MONTHS[d.getUTCMonth()]}-${pad(d.getUTCDate(), 2)} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(fraction, 6)}`
  );
}

/** The format's pattern (for schemas and tests). */
export const TIMESTAMP_PATTERN = /^\d{4}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;
