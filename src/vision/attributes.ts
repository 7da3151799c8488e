// Attribute model outputs → plain values (pure).

/** GEAR's age bins (years, bin centres). */
export const GEAR_AGE_BINS = [15, 23, 28, 35.5, 45.5, 55.5, 65] as const;
export const GEAR_RACES = ['white', 'black', 'asian', 'indian', 'other'] as const;
export const EMOTION_CLASSES = ['angry', 'disgust', 'fear', 'happy', 'sad', 'surprise', 'neutral'] as const;

export interface Demographics {
  /** years */
  age: number;
  /** probability the face is male, 0..1 */
  male: number;
  /** GEAR's five race classes, summing to 1 */
  race: Record<(typeof GEAR_RACES)[number], number>;
}

function expectation(probs: ArrayLike<number>, values: readonly number[]): number {
  let sum = 0;
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    sum += probs[i]! * values[i]!;
    total += probs[i]!;
  }
  return total > 0 ? sum / total : 0;
}

/** FaceRes's age in years: the expectation of its 100-bin (0–99 years) softmax. */
export function faceresAge(probs: ArrayLike<number>): number {
  return expectation(probs, Array.from({ length: probs.length }, (_, i) => i));
}

/**
 * Age in years: GEAR's 7-bin expectation, averaged with a second age model's years when one
 * ran (each alone is biased toward its training set's middle ages), or with `secondOnly` the
 * second model's years alone.
 */
export function estimateAge(gearAge: ArrayLike<number>, otherYears?: number, secondOnly = false): number {
  if (otherYears !== undefined && secondOnly) return otherYears;
  const gear = expectation(gearAge, GEAR_AGE_BINS);
  return otherYears === undefined ? gear : (otherYears + gear) / 2;
}

/**
 * Male probability: the second gender model's when one ran, else GEAR's [male, female] softmax.
 * GEAR's gender is the weakest of the three: alone it got 3 of 62 labelled faces wrong with
 * 0.54–0.97 confidence, and averaged into the second model's it turned 6 women male
 * (`npm run eval:attributes`, docs/accuracy.md), so it is only the fallback.
 */
export function estimateMale(gearGender: ArrayLike<number>, otherMale?: number): number {
  return otherMale ?? gearGender[0]!;
}

export function raceFractions(race: ArrayLike<number>): Demographics['race'] {
  const total = GEAR_RACES.reduce((s, _, i) => s + race[i]!, 0) || 1;
  return Object.fromEntries(GEAR_RACES.map((name, i) => [name, race[i]! / total])) as Demographics['race'];
}

/**
 * Liveness 0..1 (1 = live person): the mean of the antispoof model's real-probability and
 * the liveness model's live-probability.
 */
export function combineLiveness(antispoofReal: number, livenessLive: number): number {
  return Math.min(1, Math.max(0, (antispoofReal + livenessLive) / 2));
}
