// Retention: which templates a gallery's policy has expired at `now` (pure). 'enrolled': a
// template expires `days` after its enrollment. 'lastSeen': a subject expires whole `days`
// after it was last recognised or verified on this device, or enrolled, whichever is later.
import type { Retention } from '../store/schema.ts';

const DAY_MS = 86_400_000;

export interface RetentionView {
  templates: readonly { subject: string; faceId: string; enrolled: number }[];
  lastSeen: ReadonlyMap<string, number>;
}

export interface Expiry {
  subject: string;
  /** the expired templates; `whole`: every template of the subject */
  faceIds: string[];
  whole: boolean;
}

export function expiredAt(view: RetentionView, retention: Retention, now: number): Expiry[] {
  const cutoff = now - retention.days * DAY_MS;
  const bySubject = new Map<string, { faceId: string; enrolled: number }[]>();
  for (const t of view.templates) bySubject.set(t.subject, [...(bySubject.get(t.subject) ?? []), t]);
  const expiries: Expiry[] = [];
  for (const [subject, templates] of bySubject) {
    const expired =
      retention.from === 'enrolled'
        ? templates.filter((t) => t.enrolled < cutoff)
        : Math.max(view.lastSeen.get(subject) ?? 0, ...templates.map((t) => t.enrolled)) < cutoff
          ? templates
          : [];
    if (expired.length > 0) expiries.push({ subject, faceIds: expired.map((t) => t.faceId), whole: expired.length === templates.length });
  }
  return expiries;
}
