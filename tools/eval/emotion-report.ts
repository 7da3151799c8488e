// Scores emotion top-1 (pure) on the largest face: expressions/ against its folder label, and,
// as an informal extra, faces/stock_emotions_* against the manifest's expression_hint, which is
// a helper's visual guess rather than a source label.
import type { EmotionModelId } from '../../src/models/catalog.ts';
import type { ManifestFile } from './dataset.ts';
import type { EvalImage } from './pages/eval.ts';

export const EMOTION_MODELS: readonly EmotionModelId[] = ['emotion', 'faceapi-expression'];

/** expressions/<folder> → the engine's class name */
const FOLDER_LABEL: Record<string, string> = {
  angry: 'angry',
  disgusted: 'disgust',
  fearful: 'fear',
  happy: 'happy',
  neutral: 'neutral',
  sad: 'sad',
  surprised: 'surprise',
};

/** Class names as they appear in free-text hints ("pout / sad-angry", "fear / grimace"). */
const HINT_WORDS: Record<string, string> = {
  angry: 'angry',
  disgust: 'disgust',
  fear: 'fear',
  happy: 'happy',
  neutral: 'neutral',
  sad: 'sad',
  surprise: 'surprise',
};

/** Acceptable classes for a file, or undefined when it has no usable label. */
export function expectedEmotions(file: ManifestFile): string[] | undefined {
  if (file.kind === 'expression') {
    const folder = file.path.split('/')[1] ?? '';
    const label = FOLDER_LABEL[folder];
    if (!label) throw new Error(`${file.path}: no class for the folder "${folder}"`);
    return [label];
  }
  // hints like "playful, tongue out" or "wink" name no class: not scored
  const words = (file.expression_hint ?? '').toLowerCase().match(/[a-z]+/g) ?? [];
  const classes = [...new Set(words.map((w) => HINT_WORDS[w]).filter((c): c is string => c !== undefined))];
  return classes.length ? classes : undefined;
}

export interface EmotionCase {
  file: ManifestFile;
  expected: string[];
  /** per model; undefined image = the analysis failed */
  byModel: Partial<Record<EmotionModelId, EvalImage>>;
}

export interface ModelScore {
  model: EmotionModelId;
  correct: number;
  total: number;
  /** mean probability of the expected class (the likelier one where two are accepted); 0 where no face was found */
  meanTrueProb: number;
}

export interface Prediction {
  top?: string;
  prob?: number;
  correct: boolean;
}

export function predict(image: EvalImage | undefined, expected: readonly string[]): Prediction {
  const emotion = image?.faces[0]?.emotion;
  if (!emotion) return { correct: false };
  const [top, prob] = Object.entries(emotion).reduce((best, e) => (e[1] > best[1] ? e : best));
  return { top, prob, correct: expected.includes(top) };
}

export function scoreModel(cases: readonly EmotionCase[], model: EmotionModelId): ModelScore {
  let correct = 0;
  let trueProb = 0;
  for (const c of cases) {
    const image = c.byModel[model];
    if (predict(image, c.expected).correct) correct++;
    trueProb += Math.max(...c.expected.map((e) => image?.faces[0]?.emotion?.[e] ?? 0));
  }
  return { model, correct, total: cases.length, meanTrueProb: cases.length ? trueProb / cases.length : 0 };
}

/** More top-1 hits wins; equal hits are broken by the mean probability of the true class. */
export function pickWinner(scores: readonly ModelScore[]): { winner: ModelScore; tie: boolean } {
  const sorted = [...scores].sort((a, b) => b.correct - a.correct || b.meanTrueProb - a.meanTrueProb);
  return { winner: sorted[0]!, tie: sorted.length > 1 && sorted[0]!.correct === sorted[1]!.correct };
}

const pct = (s: ModelScore) => `${s.correct}/${s.total}`;

function caseTable(cases: readonly EmotionCase[], label: (c: EmotionCase) => string): string[] {
  const lines = [
    `| image | expected | ${EMOTION_MODELS.map((m) => `${m} top-1`).join(' | ')} |`,
    `|---|---|${EMOTION_MODELS.map(() => '---').join('|')}|`,
  ];
  for (const c of cases) {
    const cells = EMOTION_MODELS.map((m) => {
      const image = c.byModel[m];
      const p = predict(image, c.expected);
      if (!image) return 'error';
      if (p.top === undefined) return 'no face';
      if (image.faces.length === 1) return `${p.correct ? '✓' : '✗'} ${p.top} ${p.prob!.toFixed(2)}`;
      // the largest face may be a false detection: show what the most confident one says
      const best = image.faces.reduce((a, b) => (b.score > a.score ? b : a));
      const b = predict({ ...image, faces: [best] }, c.expected);
      const alt = best === image.faces[0] ? '' : `; most confident face: ${b.correct ? '✓' : '✗'} ${b.top} ${b.prob!.toFixed(2)}`;
      return `${p.correct ? '✓' : '✗'} ${p.top} ${p.prob!.toFixed(2)} (${image.faces.length} faces${alt})`;
    });
    lines.push(`| ${c.file.path} | ${label(c)} | ${cells.join(' | ')} |`);
  }
  return lines;
}

/** Cases where the detector did not find exactly one face (so the largest one is scored). */
function withoutOneFace(cases: readonly EmotionCase[]): EmotionCase[] {
  return cases.filter((c) => Object.values(c.byModel).some((image) => image && image.faces.length !== 1));
}

export interface EmotionReport {
  labelled: ModelScore[];
  informal: ModelScore[];
  winner: ModelScore;
  tie: boolean;
}

export function scoreEmotion(labelled: readonly EmotionCase[], informal: readonly EmotionCase[]): EmotionReport {
  const scores = EMOTION_MODELS.map((m) => scoreModel(labelled, m));
  const { winner, tie } = pickWinner(scores);
  return { labelled: scores, informal: EMOTION_MODELS.map((m) => scoreModel(informal, m)), winner, tie };
}

export function emotionSummaryLines(r: EmotionReport, labelled: readonly EmotionCase[]): string[] {
  const notOne = withoutOneFace(labelled);
  return [
    ...notOne.map((c) => `  ${c.file.path}: ${c.byModel[EMOTION_MODELS[0]!]?.faces.length} faces; the largest is scored`),
    ...r.labelled.map((s) => `emotion ${s.model}: top-1 ${pct(s)} on expressions/ (mean p(true class) ${s.meanTrueProb.toFixed(2)})`),
    ...r.informal.map((s) => `  informal, stock_emotions hints (guesses): ${s.model} ${pct(s)}`),
    `better on expressions/: ${r.winner.model}${r.tie ? ' (tied on top-1; decided by mean p(true class))' : ''}`,
  ];
}

export function emotionMarkdown(
  r: EmotionReport,
  labelled: readonly EmotionCase[],
  informal: readonly EmotionCase[],
  skipped: readonly ManifestFile[],
  defaultModel: EmotionModelId,
): string {
  const lines = [
    'Top-1 of the 7 classes on the largest face found, with the shipped detection settings.',
    '',
    '| model | expressions/ top-1 | mean p(true class) | informal: stock_emotions hints |',
    '|---|--:|--:|--:|',
  ];
  r.labelled.forEach((s, i) => {
    const inf = r.informal[i]!;
    lines.push(`| ${s.model}${s.model === defaultModel ? ' (engine default)' : ''} | ${pct(s)} | ${s.meanTrueProb.toFixed(2)} | ${pct(inf)} |`);
  });
  const verdict =
    r.winner.model === defaultModel
      ? `the engine default (\`DEFAULT_EMOTION_MODEL\`) is \`${defaultModel}\`, which matches.`
      : `**the engine default (\`DEFAULT_EMOTION_MODEL\`) is \`${defaultModel}\`: this run favours switching it.**`;
  const notOne = withoutOneFace(labelled);
  lines.push(
    '',
    `Faces found on expressions/ (one person each; not a detection target): exactly one on ${labelled.length - notOne.length}/${labelled.length}` +
      (notOne.length ? ` (not on ${notOne.map((c) => c.file.path).join(', ')}; the largest face is scored)` : '') +
      '.',
    '',
    `Better on the labelled set: **${r.winner.model}**${r.tie ? ' (same top-1 count; decided by the mean probability of the true class)' : ''}; ${verdict}`,
    `With ${labelled.length} labelled images one image is ${(100 / labelled.length).toFixed(0)} points: treat small differences as noise.`,
    '',
    '### expressions/ (labels from the source file names)',
    '',
    ...caseTable(labelled, (c) => c.expected.join(' or ')),
    '',
    '### Informal: faces/stock_emotions_a and _b',
    '',
    'Not a measurement: `expression_hint` values are a helper\'s visual guesses, not source labels.',
    'A hint counts when it names a class (a hint naming two accepts either); the rest are skipped.',
    '',
    ...caseTable(informal, (c) => `${c.expected.join(' or ')} ("${c.file.expression_hint}")`),
    '',
    `Skipped (hint names no class): ${skipped.map((f) => `${f.path.split('/').pop()} (${f.expression_hint ? `"${f.expression_hint}"` : 'no hint'})`).join(', ') || 'none'}.`,
  );
  return lines.join('\n');
}
