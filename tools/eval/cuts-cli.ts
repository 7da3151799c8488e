// `tsx tools/eval/cuts-cli.ts [--set border|closeup|audience|photos]...`: only the border-cut, close-up
// and audience parts of `npm run eval`, printed, nothing written (for A/B runs of a detector
// change). `--limit N` takes every k-th photo so that N are run.
import { parseArgs } from 'node:util';
import { withBrowserSession } from '../harness/browser-session.ts';
import { loadEvalSets } from './dataset.ts';
import { audienceStats, counted, cutTargetLines, runAudience, runAudiencePhotos, runCutSet, scoreCuts } from './cuts-report.ts';
import { bestIou, extraBoxes, isFound, type Rect } from './cuts.ts';

const fmt = (r: Rect) => `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}×${Math.round(r.height)}`;

const { values } = parseArgs({ options: { set: { type: 'string', multiple: true }, limit: { type: 'string' }, console: { type: 'boolean', default: false }, verbose: { type: 'boolean', default: false }, detection: { type: 'string' } } });
const sets = values.set ?? ['border', 'closeup', 'audience', 'photos'];
const all = loadEvalSets().faces;
const limit = values.limit ? Number(values.limit) : all.length;
const detection = values.detection ? (JSON.parse(values.detection) as Record<string, unknown>) : undefined;
const files = all.filter((_, i) => i % Math.ceil(all.length / limit) === 0);

await withBrowserSession({ console: values.console, callTimeoutMs: 600_000 }, async (session) => {
  await session.open('/tools/eval/pages/eval.html');
  const t0 = Date.now();
  const empty = { photos: 0, skipped: [], outcomes: [], ms: 0, errors: [] };
  const border = sets.includes('border') ? await runCutSet(session, files, 'border', detection) : empty;
  const closeUp = sets.includes('closeup') ? await runCutSet(session, files, 'closeup', detection) : empty;
  for (const o of [border, closeUp]) {
    for (const e of o.errors) console.error(`error: ${e}`);
    if (values.verbose) for (const x of o.outcomes.filter((x) => !isFound(x) && counted(x))) console.log(`  miss ${x.path} ${x.crop.label} iou ${bestIou(x).toFixed(2)} boxes ${x.boxes.length}`);
    if (values.verbose) for (const x of o.outcomes.filter((x) => extraBoxes(x) > 0)) console.log(`  extra ${x.path} ${x.crop.label} (${x.crop.rect.width}×${x.crop.rect.height}) truth ${fmt(x.crop.truth)} boxes ${x.boxes.map(fmt).join(' ')}`);
  }
  if (sets.includes('border')) {
    const s = scoreCuts(border.outcomes);
    console.log(`border: all crops ${s.found}/${s.crops}, extra ${s.extra}, ${(border.ms / 1000).toFixed(1)} s`);
  }
  if (sets.includes('border') || sets.includes('closeup')) for (const l of cutTargetLines(border, closeUp)) console.log(l);
  if (sets.includes('closeup')) console.log(`close-up ${(closeUp.ms / 1000).toFixed(1)} s`);
  if (sets.includes('audience')) {
    const a = await runAudience(session, `eval-cuts-${Date.now()}`);
    if (a.error) console.error(`audience error: ${a.error}`);
    const s = audienceStats(a);
    console.log(`audience: ${s.frames} results, ${s.facesPerResult.toFixed(2)} faces/result; ${s.perPerson.map((p) => `${p.who} ${p.frames}`).join(', ')}`);
  }
  if (sets.includes('photos')) {
    const p = await runAudiencePhotos(session);
    for (const [name, o] of [['default', p.frontal], ['FULL', p.full]] as const) {
      if (o.error) console.error(`audience photos error: ${o.error}`);
      const s = audienceStats(o);
      console.log(`audience as photos, ${name}: ${(s.facesPerResult * s.frames).toFixed(0)}/${4 * s.frames}; ${s.perPerson.map((q) => `${q.who} ${q.frames}`).join(', ')}`);
    }
  }
  console.log(`wall ${((Date.now() - t0) / 1000).toFixed(1)} s`);
});
