// The analytics impressions (GET /v2/analytics/{id}) as one card per person: demographics,
// time in the video, attention, dwell and glances, the emotion score (positive / neutral /
// negative) and the average of each emotion. Text only via textContent.
import type { AnalyticsObject } from '../../index.ts';
import { h } from '../ui/dom.ts';
import { EMOTION_STYLE, EMOTIONS, formatSeconds, pct } from './emotions.ts';

export type Impression = AnalyticsObject['impressions'][number];

const GENDER = ['Male', 'Female'];
const GLASSES = ['No', 'Yes'];
/** A numeric code as words; -1 is the engine's "not measured" (glasses: no model detects them). */
const codeText = (names: readonly string[], code: number) => (code < 0 ? 'not measured' : (names[code] ?? String(code)));

/** A labelled bar with its value as text (role=meter, like the face cards'). */
export function meterRow(label: string, value: number, color?: string): HTMLElement[] {
  const v = Math.round(Math.max(0, Math.min(100, value)));
  const fill = h('span', {});
  fill.style.width = `${v}%`;
  if (color) fill.style.background = color;
  return [
    h('dt', { text: label }),
    h(
      'dd',
      {},
      h('span', { class: 'meter', role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': String(v), 'aria-label': label }, fill),
      h('span', { text: pct(value) }),
    ),
  ];
}

/** A small square in the person's colour, then "Person <id>". */
export function personChip(id: string, color: string): HTMLElement {
  const swatch = h('span', { class: 'person-swatch', 'aria-hidden': 'true' });
  swatch.style.background = color;
  return h('span', { class: 'person-chip' }, swatch, h('span', { text: `Person ${id}` }));
}

function scoreBar(score: Impression['emotion_score']): HTMLElement {
  const parts = [
    ['positive', score.positive],
    ['neutral', score.neutral],
    ['negative', score.negative],
  ] as const;
  const bar = h('div', { class: 'score-bar', role: 'img', 'aria-label': `Emotion score: ${parts.map(([k, v]) => `${k} ${pct(v)}`).join(', ')}` });
  for (const [k, v] of parts) {
    const seg = h('span', { class: `score-${k}` });
    seg.style.width = `${Math.max(0, v)}%`;
    bar.append(seg);
  }
  const legend = h('p', { class: 'score-legend', 'aria-hidden': 'true' }, ...parts.map(([k, v]) => h('span', { class: `score-key score-${k}-key`, text: `${k} ${pct(v)}` })));
  return h('div', { class: 'score' }, bar, legend);
}

export function impressionCard(imp: Impression, color: string): HTMLLIElement {
  const facts: HTMLElement[] = [
    h('dt', { text: 'Age group' }),
    h('dd', { text: imp.demographics.age_group }),
    h('dt', { text: 'Gender' }),
    h('dd', { text: codeText(GENDER, imp.demographics.gender) }),
    h('dt', { text: 'Glasses' }),
    h('dd', { text: codeText(GLASSES, imp.appearance.glasses) }),
    h('dt', { text: 'Duration' }),
    h('dd', { text: `${formatSeconds(imp.duration)} (first to last sighting)` }),
    h('dt', { text: 'Dwell' }),
    h('dd', { text: `${formatSeconds(imp.tracking.dwell)} in view` }),
    h('dt', { text: 'Glances' }),
    h('dd', { text: String(imp.tracking.glances) }),
    ...meterRow('Attention', imp.tracking.attention),
  ];
  return h(
    'li',
    { class: 'impression card', dataset: { person: imp.id } },
    h('h4', { class: 'person-heading' }, personChip(imp.id, color)),
    h('dl', { class: 'facts' }, ...facts),
    h('h5', { text: 'Emotion score' }),
    scoreBar(imp.emotion_score),
    h('h5', { text: 'Average emotions' }),
    h('dl', { class: 'facts emotions' }, ...EMOTIONS.flatMap((k) => meterRow(EMOTION_STYLE[k].label, imp.average_emotion[k], EMOTION_STYLE[k].color))),
  );
}
