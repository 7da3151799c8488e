// Part of `npm run eval:recognition`: recognise the labelled people in the BBT group photos
// with the real engine (enroll + recognize through IndexedDB). Every faces/ image of the BBT
// cast is enrolled into one gallery (subject = identity); each groups/bbt*.jpg is recognised and
// the set of top candidates at confidence ≥ 0.60 compared with the manifest's identities_present.
// Page side: tools/eval/pages/bbt-groups.ts (loaded by the recognition eval page).
import { resolve } from 'node:path';
import type { BrowserSession } from '../harness/browser-session.ts';
import type { BbtEnrollResult, BbtRecognizeResult } from './pages/bbt-groups.ts';

export const BBT_CAST = ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart'] as const;
const MIN_CONFIDENCE = 0.6;
const GALLERY = 'bbt';

export interface BbtManifestFile {
  path: string;
  identity?: string;
  identities_present?: string[];
}

export interface BbtImageResult {
  path: string;
  expected: string[];
  found: string[];
  missed: string[];
  /** accepted top candidates that are not in the photo (or a second face given the same name) */
  falseIds: string[];
  faces: number;
  error?: string;
}

export interface BbtOutcome {
  enrolled: number;
  enrollFailures: string[];
  images: BbtImageResult[];
}

export async function runBbtGroups(session: BrowserSession, dataDir: string, files: readonly BbtManifestFile[]): Promise<BbtOutcome> {
  const cast = new Set<string>(BBT_CAST);
  const enrollFiles = files.filter((f) => f.path.startsWith('faces/') && cast.has(f.identity ?? f.path.split('/')[1]!));
  const groups = files
    .filter((f) => /^groups\/bbt\d+\.jpg$/.test(f.path) && f.identities_present)
    .sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
  await session.call('bbtStart', `eval-bbt-${Date.now()}`);
  let enrolled = 0;
  const enrollFailures: string[] = [];
  for (const f of enrollFiles) {
    const r = await session.call<BbtEnrollResult>('bbtEnroll', resolve(dataDir, f.path), f.identity ?? f.path.split('/')[1]!, GALLERY);
    if (r.ok) enrolled++;
    else enrollFailures.push(`${f.path}: ${r.error}`);
    process.stdout.write(r.ok ? '+' : '!');
  }
  console.log();
  const images: BbtImageResult[] = [];
  for (const g of groups) {
    const expected = [...g.identities_present!].sort();
    const r = await session.call<BbtRecognizeResult>('bbtRecognize', resolve(dataDir, g.path), GALLERY);
    if (!r.ok) {
      images.push({ path: g.path, expected, found: [], missed: expected, falseIds: [], faces: 0, error: r.error });
      continue;
    }
    const accepted = r.faces.filter((f) => f.subject !== undefined && (f.confidence ?? 0) >= MIN_CONFIDENCE).map((f) => f.subject!);
    const found = [...new Set(accepted.filter((s) => expected.includes(s)))].sort();
    const falseIds = accepted.filter((s) => !expected.includes(s));
    // the same name on two faces: all but one of them are wrong
    for (const s of found) for (let k = accepted.filter((a) => a === s).length; k > 1; k--) falseIds.push(s);
    images.push({ path: g.path, expected, found, missed: expected.filter((e) => !found.includes(e)), falseIds: falseIds.sort(), faces: r.faces.length });
  }
  return { enrolled, enrollFailures, images };
}

export function bbtMarkdown(o: BbtOutcome): string[] {
  const expected = o.images.reduce((t, i) => t + i.expected.length, 0);
  const found = o.images.reduce((t, i) => t + i.found.length, 0);
  const falseIds = o.images.reduce((t, i) => t + i.falseIds.length, 0);
  const list = (xs: string[]) => (xs.length ? xs.join(', ') : '—');
  return [
    '### BBT group photos (real engine)',
    '',
    `\`engine.enroll\` of every faces/ image of ${BBT_CAST.join(', ')} into one gallery (subject = identity): ` +
      `${o.enrolled} enrolled, ${o.enrollFailures.length} refused${o.enrollFailures.length ? ` (${o.enrollFailures.map((f) => f.split(':')[0]).join(', ')})` : ''}. ` +
      `Then \`engine.recognize\` on each groups/bbt*.jpg; a person counts as found when some face's top candidate is that person at confidence ≥ ${MIN_CONFIDENCE.toFixed(2)}; ` +
      'an accepted top candidate who is not in the photo (per the manifest\'s `identities_present`), or a second face given the same name, is a false identification.',
    '',
    '| image | faces | found / expected | missed | false |',
    '|---|--:|--:|---|---|',
    ...o.images.map(
      (i) => `| ${i.path} | ${i.error ? `error: ${i.error}` : i.faces} | ${i.found.length}/${i.expected.length} | ${list(i.missed)} | ${list(i.falseIds)} |`,
    ),
    `| **total** | | **${found}/${expected}** | | **${falseIds}** |`,
  ];
}

export function bbtSummary(o: BbtOutcome): string {
  const expected = o.images.reduce((t, i) => t + i.expected.length, 0);
  const found = o.images.reduce((t, i) => t + i.found.length, 0);
  const falseIds = o.images.reduce((t, i) => t + i.falseIds.length, 0);
  return `BBT groups: found ${found}/${expected} labelled people, ${falseIds} false identifications (${o.enrolled} enrolled, ${o.enrollFailures.length} refused)`;
}
