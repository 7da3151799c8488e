// Part of `npm run eval`: the video checks of the emotion (v2 media) issue, through the real
// engine's mediaPost/mediaGet (page side: tools/eval/pages/video.ts):
//   - synthetic pan/zoom clip (one face, biden, in every frame): one person per frame and
//     exactly one person_id across all frames;
//   - no-face clip (testsrc2 pattern): zero people in every frame.
import { resolve } from 'node:path';
import type { BrowserSession } from '../harness/browser-session.ts';
import { projectRoot } from '../harness/browser-session.ts';
import type { VideoResult } from './pages/video.ts';

const DATA = resolve(projectRoot, '../shared/data');
export const SYNTHETIC_CLIP = 'video/synthetic_panzoom_biden_vp9.webm';
export const NOFACE_CLIP = 'video/negative_testsrc2_noface_vp9.webm';

export interface ClipStats {
  path: string;
  error?: string;
  frames: number;
  distinctIds: string[];
  framesWithOne: number;
  /** people summed over all frames */
  people: number;
  wallMs: number;
  length: number;
}

export interface VideoOutcome {
  synthetic: ClipStats;
  noFace: ClipStats;
}

function stats(path: string, r: VideoResult): ClipStats {
  if (!r.ok) return { path, error: r.error, frames: 0, distinctIds: [], framesWithOne: 0, people: 0, wallMs: 0, length: 0 };
  return {
    path,
    frames: r.frames.length,
    distinctIds: [...new Set(r.frames.flatMap((f) => f.personIds))].sort(),
    framesWithOne: r.frames.filter((f) => f.personIds.length === 1).length,
    people: r.frames.reduce((t, f) => t + f.personIds.length, 0),
    wallMs: r.wallMs,
    length: r.length,
  };
}

export async function runVideoChecks(session: BrowserSession): Promise<VideoOutcome> {
  const storage = `eval-video-${Date.now()}`;
  const run = async (path: string) => {
    const r = await session.call<VideoResult>('analyzeVideo', resolve(DATA, path), storage);
    const s = stats(path, r);
    console.log(
      s.error
        ? `  ${path}: error ${s.error}`
        : `  ${path}: ${s.frames} frames, person_ids [${s.distinctIds.join(', ')}], ${s.framesWithOne} frames with exactly one person, ` +
            `${s.people} people in all (${(s.wallMs / 1000).toFixed(1)} s)`,
    );
    return s;
  };
  return { synthetic: await run(SYNTHETIC_CLIP), noFace: await run(NOFACE_CLIP) };
}

const syntheticMet = (s: ClipStats) => !s.error && s.frames > 0 && s.distinctIds.length === 1 && s.framesWithOne === s.frames;
const noFaceMet = (s: ClipStats) => !s.error && s.frames > 0 && s.people === 0;

export function videoErrors(o: VideoOutcome): string[] {
  return [o.synthetic, o.noFace].filter((s) => s.error).map((s) => `${s.path}: ${s.error}`);
}

export function videoTargetLines(o: VideoOutcome): string[] {
  const { synthetic: s, noFace: n } = o;
  return [
    `TARGET ${syntheticMet(s) ? 'MET' : 'MISSED'}: synthetic clip, one person in every frame and one person_id throughout ` +
      `(${s.framesWithOne}/${s.frames} frames with exactly one person, ${s.distinctIds.length} distinct person_id(s))`,
    `TARGET ${noFaceMet(n) ? 'MET' : 'MISSED'}: no-face clip, zero people (${n.people} people over ${n.frames} frames)`,
  ];
}

export function videoMarkdown(o: VideoOutcome): string {
  const { synthetic: s, noFace: n } = o;
  const cell = (c: ClipStats, v: string) => (c.error ? `error: ${c.error}` : v);
  return [
    '## Video (emotion media)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run eval\` (tools/eval/video-report.ts): each clip posted to the real engine ` +
      '(`engine.mediaPost({source, timeout: 60})`, polling `engine.mediaGet` while it answers status_code 2), with the media service defaults ' +
      '(5 sampled frames per second, minHeadScale 0.1; docs/emotion.md). Regenerate rather than edit.',
    '',
    '| clip | sampled frames | distinct person_ids | frames with exactly one person | people in all frames | wall clock |',
    '|---|--:|--:|--:|--:|--:|',
    ...[s, n].map(
      (c) =>
        `| ${c.path} | ${cell(c, String(c.frames))} | ${cell(c, String(c.distinctIds.length))} | ${cell(c, String(c.framesWithOne))} | ` +
        `${cell(c, String(c.people))} | ${cell(c, `${(c.wallMs / 1000).toFixed(1)} s`)} |`,
    ),
    '',
    `- Synthetic clip (biden, pan/zoom, one face in every frame): exactly one person in every frame and a single person_id across all frames → ` +
      `**${syntheticMet(s) ? 'MET' : 'MISSED'}**`,
    `- No-face clip (testsrc2 pattern): zero people → **${noFaceMet(n) ? 'MET' : 'MISSED'}**`,
  ].join('\n');
}
