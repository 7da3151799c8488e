// The six emotions of the v2 interface as this screen shows them: names, colours, line
// styles (colour is never the only cue), and small helpers over a person's values.

export const EMOTIONS = ['anger', 'disgust', 'fear', 'joy', 'sadness', 'surprise'] as const;
export type EmotionName = (typeof EMOTIONS)[number];
export type EmotionValues = Record<EmotionName, number>;

export interface EmotionStyle {
  label: string;
  color: string;
  /** SVG stroke-dasharray ('' = solid) */
  dash: string;
}

/** Colours with ≥ 3:1 contrast on white; each line also has its own dash pattern. */
export const EMOTION_STYLE: Readonly<Record<EmotionName, EmotionStyle>> = {
  anger: { label: 'Anger', color: '#c62828', dash: '' },
  disgust: { label: 'Disgust', color: '#4d7c0f', dash: '7 3' },
  fear: { label: 'Fear', color: '#7b3fa0', dash: '2 3' },
  joy: { label: 'Joy', color: '#c77700', dash: '' },
  sadness: { label: 'Sadness', color: '#1f5fbf', dash: '9 3 2 3' },
  surprise: { label: 'Surprise', color: '#00838f', dash: '4 2' },
};

/** Box and chip colours of people, by order of appearance. */
const PERSON_COLORS = ['#3d63dd', '#b4461b', '#1f8a4c', '#8e24aa', '#c2185b', '#00838f', '#6d4c41', '#5d6b00'];
export const personColor = (index: number): string => PERSON_COLORS[index % PERSON_COLORS.length]!;

/** Neutral is what the six leave of 100 (docs/emotion.md). */
export const neutralOf = (e: EmotionValues): number => Math.max(0, 100 - EMOTIONS.reduce((sum, k) => sum + e[k], 0));

/** The strongest of the six, or neutral when none beats it. */
export function dominant(e: EmotionValues): { name: string; value: number } {
  let best: { name: string; value: number } = { name: 'neutral', value: neutralOf(e) };
  for (const k of EMOTIONS) if (e[k] > best.value) best = { name: k, value: e[k] };
  return best;
}

export const pct = (v: number): string => `${Math.round(v)}%`;

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '–';
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
}
