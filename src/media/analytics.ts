// A complete media object → the analytics object of GET /v2/analytics/{id} (pure): one
// impression per person_id, in order of first appearance. Definitions in docs/emotion.md.
import { UNKNOWN } from '../api/field-audit.ts';
import { EMOTION_NAMES, emotionScore, GENDER_CODE, GLASSES_CODE, round, type Emotions } from './metrics.ts';
import type { Analytics, CompleteMedia, Impression, MediaPerson } from './schema.ts';

/** The sampling interval of a media object's frames (ms): the first gap between frame times; 0 for one frame. */
export function samplingIntervalMs(media: Pick<CompleteMedia, 'frames'>): number {
  const [a, b] = media.frames;
  return a && b ? b.time - a.time : 0;
}

/** The most frequent value (the first seen wins a tie). */
function mode<T>(values: readonly T[]): T {
  const counts = new Map<T, number>();
  let best: T = values[0] as T;
  for (const v of values) {
    const c = (counts.get(v) ?? 0) + 1;
    counts.set(v, c);
    if (c > (counts.get(best) ?? 0)) best = v;
  }
  return best;
}

export function analyticsOf(media: CompleteMedia): Analytics {
  const interval = samplingIntervalMs(media);
  const sightings = new Map<string, { time: number; person: MediaPerson }[]>();
  for (const frame of media.frames) {
    for (const person of frame.people) {
      let list = sightings.get(person.person_id);
      if (!list) sightings.set(person.person_id, (list = []));
      list.push({ time: frame.time, person });
    }
  }
  const impressions: Impression[] = [];
  for (const [id, list] of sightings) {
    const people = list.map((s) => s.person);
    const n = people.length;
    // sightings whose emotions could not be measured (-1) do not count; none measured → unknown
    const felt = people.filter((p) => p.emotions.anger !== UNKNOWN.number);
    const average = Object.fromEntries(
      EMOTION_NAMES.map((name) => [name, felt.length ? round(felt.reduce((s, p) => s + p.emotions[name], 0) / felt.length, 2) : UNKNOWN.number]),
    ) as Emotions;
    const last = people[n - 1]!;
    impressions.push({
      id,
      appearance: { glasses: GLASSES_CODE[mode(people.map((p) => p.appearance.glasses))] },
      average_emotion: average,
      demographics: {
        age_group: mode(people.map((p) => p.demographics.age_group)),
        gender: GENDER_CODE[mode(people.map((p) => p.demographics.gender))],
      },
      duration: round((list[n - 1]!.time - list[0]!.time + interval) / 1000, 3),
      emotion_score: felt.length ? emotionScore(average) : { negative: UNKNOWN.number, neutral: UNKNOWN.number, positive: UNKNOWN.number },
      tracking: {
        attention: round(people.reduce((s, p) => s + p.tracking.attention, 0) / n, 1),
        dwell: last.tracking.dwell,
        glances: last.tracking.glances,
      },
    });
  }
  return {
    id: media.id,
    media_info: {
      filename: media.media_info.file,
      length: media.media_info.length,
      mime_type: media.media_info.mime_type,
      type: media.media_info.type,
    },
    impressions,
  };
}
