// A card describing one detected face: demographics, pose, quality, liveness and, when the
// emotion pass measured this face, the six emotions as bars. Text only via textContent.
import type { DetectFace } from '../../index.ts';
import { h } from './dom.ts';

export type Emotions = Record<'anger' | 'disgust' | 'fear' | 'joy' | 'sadness' | 'surprise', number>;

function meter(label: string, fraction: number, text: string): HTMLElement[] {
  const pct = Math.round(Math.max(0, Math.min(1, fraction)) * 100);
  return [
    h('dt', { text: label }),
    h('dd', {}, h('span', { class: 'meter', role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': String(pct), 'aria-label': label }, h('span', { style: `width:${pct}%` })), h('span', { text })),
  ];
}

const plain = (label: string, text: string) => [h('dt', { text: label }), h('dd', { text })];

export function faceCard(f: DetectFace, emotions?: Emotions): HTMLLIElement {
  const a = f.attributes;
  const genderPct = Math.round(Math.max(a.gender.maleConfidence, a.gender.femaleConfidence) * 100);
  const rows: HTMLElement[] = [
    ...plain('Age', `about ${a.age}`),
    ...plain('Gender', `${a.gender.type === 'M' ? 'male' : 'female'} (${genderPct}%)`),
  ];
  // -1 is the engine's "not measured" (hispanic: no model has that class): said, never drawn as 0%
  const ethnicity = (['asian', 'black', 'hispanic', 'white', 'other'] as const).flatMap((k) =>
    a[k] < 0 ? plain(k, 'not measured') : meter(k, a[k], `${Math.round(a[k] * 100)}%`),
  );
  const pose = plain('Pose', `yaw ${f.yaw}°, pitch ${f.pitch}°, roll ${f.roll}°`);
  const measures = [...meter('Quality', f.quality, f.quality.toFixed(2)), ...meter('Confidence', f.confidence, f.confidence.toFixed(2))];
  if (a.liveness !== undefined) measures.push(...meter('Liveness', a.liveness, `${a.liveness.toFixed(2)} ${a.liveness >= 0.5 ? '(live)' : '(possible spoof)'}`));
  if (a.lips) measures.push(...plain('Lips', a.lips.toLowerCase()));
  const emotionRows = emotions
    ? (Object.entries(emotions) as [keyof Emotions, number][]).flatMap(([k, v]) => meter(k, v / 100, `${Math.round(v)}%`))
    : plain('Emotions', 'not measured for this face (too small for the emotion pass)');
  return h(
    'li',
    { class: 'face-card', dataset: { faceId: String(f.face_id) } },
    h('h3', { text: `Face ${f.face_id}` }),
    h('dl', {}, ...rows, ...pose, ...measures),
    h('h4', { text: 'Ethnicity' }),
    h('dl', {}, ...ethnicity),
    h('h4', { text: 'Emotions' }),
    h('dl', {}, ...emotionRows),
  );
}
