// One evaluation pass in a fresh browser session: every image of the eval sets through the
// page's analyzeFile(), collected for scoring. All results come from a single page load, so
// from one version of the engine's code.
import type { EmotionModelId } from '../../src/models/catalog.ts';
import { cpuSnapshot, othersShare } from '../bench/cpu-load.ts';
import { withBrowserSession, type BrowserSession } from '../harness/browser-session.ts';
import { absolutePath, type EvalSets, type ManifestFile } from './dataset.ts';
import { describeFaces, type Scored } from './detection-report.ts';
import { EMOTION_MODELS, expectedEmotions, type EmotionCase } from './emotion-report.ts';
import { runVideoChecks, type VideoOutcome } from './video-report.ts';
import { runAudience, runAudiencePhotos, runCutSet, type AudienceOutcome, type AudiencePhotosOutcome, type CutSetOutcome } from './cuts-report.ts';
import type { EvalImage, EvalInfo, EvalOptions, EvalResult } from './pages/eval.ts';

const PAGE = '/tools/eval/pages/eval.html';

/**
 * Vite reloaded the page mid-run. Its file watcher is live despite the harness's
 * `watch: null` (vite's mergeConfig drops null overrides), so an edit anywhere in the page's
 * module graph reloads it; results across a reload would mix two versions of the code.
 */
export class PageReloaded extends Error {
  constructor(during: string) {
    super(`the page was reloaded (a source file changed?) during ${during}`);
    this.name = 'PageReloaded';
  }
}

export interface EvalOutcome {
  info: EvalInfo;
  chromium: string;
  /** share of the CPU other processes used during the pass (undefined off Linux) */
  others: number | undefined;
  /** engine failures (ok: false), by file; their images are left out of the scores */
  errors: string[];
  /** wall clock of the first calls that load every model */
  coldMs: number;
  groups: Scored[];
  faces: Scored[];
  negatives: Scored[];
  labelled: EmotionCase[];
  informal: EmotionCase[];
  /** the media (v2) video checks, through the real engine */
  video: VideoOutcome;
  /** border-cut and close-up crops of faces/ photos (tools/eval/cuts.ts) */
  border: CutSetOutcome;
  closeUp: CutSetOutcome;
  /** engine.watch() over the audience segment of short_hamilton_clip */
  audience: AudienceOutcome;
  /** the same segment's frames as photos */
  audiencePhotos: AudiencePhotosOutcome;
}

class Runner {
  readonly errors: string[] = [];
  reloaded = false;

  constructor(private readonly session: BrowserSession) {
    session.page.on('framenavigated', (frame) => {
      if (frame === session.page.mainFrame()) this.reloaded = true;
    });
  }

  async run(file: ManifestFile, options: EvalOptions = {}): Promise<EvalImage | undefined> {
    const what = `${file.path}${options.emotionModel ? ` [${options.emotionModel}]` : ''}`;
    let r: EvalResult;
    try {
      r = await this.session.call<EvalResult>('analyzeFile', absolutePath(file), options);
    } catch (error) {
      if (this.reloaded || (error instanceof Error && /context was destroyed/i.test(error.message))) throw new PageReloaded(what);
      throw error;
    }
    if (this.reloaded) throw new PageReloaded(what);
    if (r.ok) return r.image;
    this.errors.push(`${what}: ${r.error}`);
    console.error(`error: ${this.errors.at(-1)}`);
    return undefined;
  }

  /** Runs every file; the failed ones are left out (they are in `errors`). */
  async all(files: readonly ManifestFile[], onEach?: (s: Scored) => void): Promise<Scored[]> {
    const out: Scored[] = [];
    for (const file of files) {
      const image = await this.run(file);
      if (!image) continue;
      out.push({ file, image });
      onEach?.({ file, image });
    }
    return out;
  }

  async emotionCases(files: readonly ManifestFile[]): Promise<EmotionCase[]> {
    const cases: EmotionCase[] = [];
    for (const file of files) {
      const byModel: Partial<Record<EmotionModelId, EvalImage>> = {};
      for (const model of EMOTION_MODELS) byModel[model] = await this.run(file, { emotionModel: model });
      cases.push({ file, expected: expectedEmotions(file)!, byModel });
    }
    return cases;
  }
}

export async function runEval(sets: EvalSets, informalFiles: readonly ManifestFile[], forwardConsole: boolean, env?: string): Promise<EvalOutcome> {
  return withBrowserSession({ console: forwardConsole, callTimeoutMs: 300_000 }, async (session) => {
    await session.open(env ? `${PAGE}?env=${encodeURIComponent(env)}` : PAGE);
    const before = cpuSnapshot(); // with Chromium up, so its processes count as ours
    const info = await session.call<EvalInfo>('info');
    const runner = new Runner(session); // from here on, any navigation is a reload

    // model loading would land on whichever image comes first: pay it here, timed apart
    const warmStart = Date.now();
    for (const model of EMOTION_MODELS) await runner.run(sets.expressions[0]!, { emotionModel: model });
    const coldMs = Date.now() - warmStart;
    console.log(`cold start (models loaded, one image per emotion model): ${(coldMs / 1000).toFixed(1)} s`);

    const groups = await runner.all(sets.groups, ({ file, image }) =>
      console.log(
        `  ${file.path}: ${image.faces.length}/${file.face_count}  ${image.totalMs.toFixed(0)} ms` +
          (image.faces.length === file.face_count ? '' : `  (${describeFaces(image)})`),
      ),
    );
    const faces = await runner.all(sets.faces, ({ file, image }) => {
      if (image.faces.length !== 1) console.log(`  ${file.path}: ${describeFaces(image)}`);
    });
    console.log(`  faces/: ${faces.length} images analysed`);
    const negatives = await runner.all(sets.negatives, ({ file, image }) => console.log(`  ${file.path}: ${image.faces.length}`));
    const labelled = await runner.emotionCases(sets.expressions);
    const informal = await runner.emotionCases(informalFiles);
    console.log('  emotion: done');
    const video = await runVideoChecks(session);
    if (runner.reloaded) throw new PageReloaded('the video checks');
    const border = await runCutSet(session, sets.faces, 'border');
    console.log(`  border-cut: ${border.outcomes.length} crops`);
    const closeUp = await runCutSet(session, sets.faces, 'closeup');
    console.log(`  close-up: ${closeUp.outcomes.length} crops`);
    const audience = await runAudience(session, `eval-audience-${Date.now()}`);
    const audiencePhotos = await runAudiencePhotos(session);
    if (runner.reloaded) throw new PageReloaded('the border-cut, close-up and audience sets');
    const photosError = audiencePhotos.frontal.error ?? audiencePhotos.full.error;
    runner.errors.push(...border.errors, ...closeUp.errors, ...(audience.error ? [`audience: ${audience.error}`] : []), ...(photosError ? [`audience photos: ${photosError}`] : []));
    return {
      info,
      chromium: session.browser.version(),
      others: othersShare(before, cpuSnapshot()),
      errors: runner.errors,
      coldMs,
      groups,
      faces,
      negatives,
      labelled,
      informal,
      video,
      border,
      closeUp,
      audience,
      audiencePhotos,
    };
  });
}
