// `npm run eval`'s border-cut and close-up sets (tools/eval/cuts.ts, built at eval time from
// ../shared/data/faces photos) and the faces followed in the audience segment of
// short_hamilton_clip: run in the eval page, scored and written as markdown here.
import type { BrowserSession } from '../harness/browser-session.ts';
import { absolutePath, DATA_DIR, type ManifestFile } from './dataset.ts';
import { bestIou, extraBoxes, FOUND_IOU, isFound, type CropOutcome } from './cuts.ts';
import type { AudienceFrame, CutsResult } from './pages/cuts.ts';

/** Targets from issue 31. */
export const CUT_TARGETS = { borderFound: 0.95, closeUpFound: 1 } as const;

export interface CutSetOutcome {
  /** photos whose uncut version gave exactly one face (the others cannot give a truth) */
  photos: number;
  skipped: string[];
  outcomes: CropOutcome[];
  ms: number;
  errors: string[];
}

export async function runCutSet(session: BrowserSession, files: readonly ManifestFile[], set: 'border' | 'closeup', detection?: Record<string, unknown>): Promise<CutSetOutcome> {
  const out: CutSetOutcome = { photos: 0, skipped: [], outcomes: [], ms: 0, errors: [] };
  for (const file of files) {
    const r = await session.call<CutsResult>('analyzeCuts', absolutePath(file), set, detection);
    if (!r.ok) {
      out.errors.push(`${file.path} (${set}): ${r.error}`);
      continue;
    }
    if (r.uncutFaces !== 1) {
      out.skipped.push(`${file.path} (${r.uncutFaces} faces uncut)`);
      continue;
    }
    out.photos++;
    out.ms += r.ms;
    out.outcomes.push(...r.outcomes.map((o) => ({ ...o, path: file.path })));
  }
  return out;
}

/** Faces with at least half their box inside the crop: the ones the target counts. */
export const counted = (o: CropOutcome): boolean => o.crop.inside >= 0.5 - 1e-9;

export interface CutScore {
  crops: number;
  found: number;
  rate: number;
  extra: number;
}

export function scoreCuts(outcomes: readonly CropOutcome[]): CutScore {
  const found = outcomes.filter(isFound).length;
  return { crops: outcomes.length, found, rate: outcomes.length ? found / outcomes.length : 0, extra: outcomes.reduce((t, o) => t + extraBoxes(o), 0) };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Rows by the crop's label (edge/corner and cut fraction, or the close-up fill). */
function byLabel(outcomes: readonly CropOutcome[]): string[] {
  const labels = [...new Set(outcomes.map((o) => o.crop.label))];
  return labels.map((label) => {
    const rows = outcomes.filter((o) => o.crop.label === label);
    const s = scoreCuts(rows);
    const inside = rows.reduce((t, o) => t + o.crop.inside, 0) / rows.length;
    return `| ${label} | ${rows.length} | ${pct(inside)} | ${s.found} | ${pct(s.rate)} | ${s.extra} |`;
  });
}

export function cutsMarkdown(border: CutSetOutcome, closeUp: CutSetOutcome): string {
  const b = scoreCuts(border.outcomes.filter(counted));
  const bAll = scoreCuts(border.outcomes);
  const c = scoreCuts(closeUp.outcomes);
  const missed = (o: CutSetOutcome, filter: (x: CropOutcome) => boolean) =>
    o.outcomes
      .filter((x) => filter(x) && !isFound(x))
      .map((x) => `${x.path} ${x.crop.label} (best IoU ${bestIou(x).toFixed(2)}, ${x.boxes.length} box(es))`);
  const list = (xs: string[]) => (xs.length === 0 ? ['None.'] : xs.slice(0, 40).map((x) => `- ${x}`).concat(xs.length > 40 ? [`- … and ${xs.length - 40} more`] : []));
  return [
    '### Border-cut and close-up faces',
    '',
    `Built at eval time from the ${border.photos} one-face photos of faces/ (tools/eval/cuts.ts; nothing stored): the face found on the uncut photo is the truth; ` +
      'a crop moves one edge (or two, at a corner) into the face, keeping the rest of the photo; a close-up crop frames the face so it fills 60, 80 or 100% of the height ' +
      '(4:3, or as wide as the photo allows down to 3:4). A face is found when a returned box (clipped to the crop, as /detect returns it) has IoU ≥ ' +
      `${FOUND_IOU} with the truth clipped to the crop. "Extra" counts boxes matching no truth (the photos hold one face each).`,
    '',
    '| set | crops | found | target |',
    '|---|--:|--:|---|',
    `| border-cut, at least half the face inside | ${b.crops} | ${b.found} (${pct(b.rate)}), ${b.extra} extra | ≥ ${pct(CUT_TARGETS.borderFound)}: **${b.rate >= CUT_TARGETS.borderFound ? 'MET' : 'MISSED'}** |`,
    `| border-cut, all crops (corners 25% leave 56% inside) | ${bAll.crops} | ${bAll.found} (${pct(bAll.rate)}), ${bAll.extra} extra | — |`,
    `| close-up (face 60–100% of the height) | ${c.crops} | ${c.found} (${pct(c.rate)}), ${c.extra} extra | 100%: **${c.rate >= CUT_TARGETS.closeUpFound ? 'MET' : 'MISSED'}** |`,
    '',
    '| crop | crops | face inside (mean) | found | rate | extra |',
    '|---|--:|--:|--:|--:|--:|',
    ...byLabel(border.outcomes),
    ...byLabel(closeUp.outcomes),
    '',
    `Time: analyze() timings.total summed over the crops: border-cut ${(border.ms / 1000).toFixed(1)} s, close-up ${(closeUp.ms / 1000).toFixed(1)} s. ` +
      `Left out (the uncut photo did not give exactly one face): ${[...new Set([...border.skipped, ...closeUp.skipped])].join(', ') || 'none'}.`,
    '',
    '#### Border-cut faces missed (at least half inside)',
    '',
    ...list(missed(border, counted)),
    '',
    '#### Close-up faces missed',
    '',
    ...list(missed(closeUp, () => true)),
  ].join('\n');
}

export function cutTargetLines(border: CutSetOutcome, closeUp: CutSetOutcome): string[] {
  const b = scoreCuts(border.outcomes.filter(counted));
  const c = scoreCuts(closeUp.outcomes);
  return [
    `TARGET ${b.rate >= CUT_TARGETS.borderFound ? 'MET' : 'MISSED'}: border-cut faces found ${b.found}/${b.crops} (${pct(b.rate)}), ${b.extra} extra boxes`,
    `TARGET ${c.rate >= CUT_TARGETS.closeUpFound ? 'MET' : 'MISSED'}: close-up faces found ${c.found}/${c.crops} (${pct(c.rate)}), ${c.extra} extra boxes`,
  ];
}

/**
 * The audience segment of short_hamilton_clip by hand (media ms; centre x in the 640-wide frame,
 * as test/browser/live.test.ts places them): a woman at the left edge, Marian Robinson
 * (three-quarter profile), Barack Obama, Michelle Obama (turned away).
 */
export const AUDIENCE = {
  file: 'video/short_hamilton_clip.mp4',
  fromS: 7.9,
  toS: 10.0,
  fps: 30,
  people: [
    { who: 'woman at the left edge', x: [0, 125] },
    { who: 'Marian Robinson', x: [125, 265] },
    { who: 'Barack Obama', x: [265, 378] },
    { who: 'Michelle Obama', x: [378, 500] },
  ],
} as const;

export interface AudienceOutcome {
  frames: AudienceFrame[];
  error?: string;
}

/** The audience frames as photos: every tenth of a second, through /detect's pipeline, default selector and FULL. */
export const AUDIENCE_PHOTOS_FPS = 10;

export interface AudiencePhotosOutcome {
  frontal: AudienceOutcome;
  full: AudienceOutcome;
}

export async function runAudiencePhotos(session: BrowserSession): Promise<AudiencePhotosOutcome> {
  const run = async (full: boolean): Promise<AudienceOutcome> => {
    try {
      return { frames: await session.call<AudienceFrame[]>('detectSegment', `${DATA_DIR}/${AUDIENCE.file}`, AUDIENCE_PHOTOS_FPS, AUDIENCE.fromS, AUDIENCE.toS, full) };
    } catch (error) {
      return { frames: [], error: error instanceof Error ? error.message : String(error) };
    }
  };
  return { frontal: await run(false), full: await run(true) };
}

export function audiencePhotosMarkdown(o: AudiencePhotosOutcome): string {
  const error = o.frontal.error ?? o.full.error;
  if (error) return `### Half-turned faces in photos\n\nerror: ${error}`;
  const f = audienceStats(o.frontal);
  const u = audienceStats(o.full);
  return [
    '### Half-turned faces in photos',
    '',
    `The same audience segment as photos: ${f.frames} frames of ${AUDIENCE.file} (${AUDIENCE.fromS}–${AUDIENCE.toS} s, one every ${1000 / AUDIENCE_PHOTOS_FPS} ms, 640×360), ` +
      `each through /detect's pipeline (minHeadScale 0.015); 4 people in view, three of them half-turned (yaw 35–60°). ` +
      `Found: **${(f.facesPerResult * f.frames).toFixed(0)}/${4 * f.frames}** faces with the default selector, **${(u.facesPerResult * u.frames).toFixed(0)}/${4 * u.frames}** with FULL.`,
    '',
    '| person | frames found, default selector | frames found, FULL |',
    '|---|--:|--:|',
    ...f.perPerson.map((p, i) => `| ${p.who} | ${p.frames}/${f.frames} | ${u.perPerson[i]!.frames}/${u.frames} |`),
  ].join('\n');
}

export async function runAudience(session: BrowserSession, storageName: string): Promise<AudienceOutcome> {
  try {
    const frames = await session.call<AudienceFrame[]>('watchSegment', `${DATA_DIR}/${AUDIENCE.file}`, storageName, AUDIENCE.fps, AUDIENCE.fromS, AUDIENCE.toS, { width: 640, height: 480 });
    return { frames };
  } catch (error) {
    return { frames: [], error: error instanceof Error ? error.message : String(error) };
  }
}

export function audienceStats(o: AudienceOutcome) {
  const n = o.frames.length;
  const faces = o.frames.reduce((t, f) => t + f.faces.length, 0);
  const perPerson = AUDIENCE.people.map((p) => ({
    who: p.who,
    frames: o.frames.filter((f) => f.faces.some((x) => x.cx >= p.x[0] && x.cx < p.x[1])).length,
  }));
  return { frames: n, facesPerResult: n ? faces / n : 0, perPerson };
}

export function audienceMarkdown(o: AudienceOutcome): string {
  if (o.error) return `### Faces followed in the audience\n\nerror: ${o.error}`;
  const s = audienceStats(o);
  return [
    '### Faces followed in the audience',
    '',
    `\`engine.watch()\` (default options, emotion on; every frame processed: \`dropFrames: false\`) over ${AUDIENCE.file} ${AUDIENCE.fromS}–${AUDIENCE.toS} s, ` +
      `${AUDIENCE.fps} frames per second letterboxed into 640×480 (as bench:live's fake camera shows it): ${s.frames} results, ` +
      `**${s.facesPerResult.toFixed(2)} faces per result** (4 people in view; Michelle Obama is turned away).`,
    '',
    '| person | results showing them |',
    '|---|--:|',
    ...s.perPerson.map((p) => `| ${p.who} | ${p.frames}/${s.frames} |`),
  ].join('\n');
}
