// `npm run eval:attributes`: how much /detect's age, gender and ethnicity move with other
// demographics settings: GEAR (the costliest per-face model) on a smaller crop, a different second
// age/gender model (FaceRes or face-api's AgeGenderNet), or none. Each variant is compared with the
// first one on the same faces (agreement) and scored against what is public: every identity's
// gender, the ethnicity of some, and the range of ages their photos can show (KNOWN_AGE).
//   --variants (default: the table in docs/accuracy.md, the shipped setting first; GEAR crop side, "t" to trim its
//   margin at the same scale, then "+faceres[side]" or "+agegender" for the second model, ":age" to
//   take the age from it alone; the first is the reference)  --no-write (stdout only)
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, withBrowserSession } from '../harness/browser-session.ts';
import { writeBetweenMarkers } from '../bench/report.ts';
import { absolutePath, loadEvalSets, type ManifestFile } from './dataset.ts';
import { describeVariant, parseVariant } from './attributes-variants.ts';
import type { EvalFace, EvalResult } from './pages/eval.ts';

const DOC = resolve(projectRoot, 'docs/accuracy.md');
const START = '<!-- attributes-eval:start -->';
const END = '<!-- attributes-eval:end -->';

/**
 * the gender of every identity of ../shared/data/faces: public for the actors' characters and
 * politicians; the stock and person-* photos were labelled by looking at them (2026-11-23)
 */
const KNOWN_MALE: Record<string, boolean> = {
  obama: true,
  biden: true,
  kit_harington: true,
  alex_lacamoire: true,
  lin_manuel_miranda: true,
  howard: true,
  leonard: true,
  raj: true,
  sheldon: true,
  stuart: true,
  rose_leslie: false,
  amy: false,
  bernadette: false,
  penny: false,
  celeste: false,
  christina: false,
  tetiana: false,
  vlado: true,
  stock_emotions_a: false,
  stock_emotions_b: false,
  stock_teen_5: false,
  stock_teen_6: false,
  stock_teen_7: false,
  stock_teen_8: false,
  stock_teen_a: false,
};

/**
 * GEAR's top class for identities whose ethnicity is public (actors and politicians); the
 * stock photos and mixed or Hispanic identities (GEAR has no Hispanic class) are left out.
 * Mostly white: a check that a variant does not lose what the full model gets, not a balanced test.
 */
const KNOWN_RACE: Record<string, string> = {
  obama: 'black',
  raj: 'indian',
  biden: 'white',
  kit_harington: 'white',
  rose_leslie: 'white',
  howard: 'white',
  leonard: 'white',
  sheldon: 'white',
  stuart: 'white',
  amy: 'white',
  bernadette: 'white',
  penny: 'white',
};

/**
 * Age ranges, years: the person's age over the years their photos can come from (birth years
 * are public; the Big Bang Theory crops span the cast member's seasons, 2007–2019; Obama and
 * Biden their years in national office, 2004–2021; Harington and Leslie their Game of Thrones
 * years and after, 2011–2022; Miranda and Lacamoire Hamilton, 2015–2020). The stock_teen photos
 * were judged by looking at them (13–22). Wide on purpose: they catch a model that reads a
 * whole group years off, not a few years' error.
 */
const KNOWN_AGE: Record<string, readonly [number, number]> = {
  obama: [43, 60], // born 1961
  biden: [61, 79], // born 1942
  kit_harington: [24, 36], // born 1986
  rose_leslie: [24, 35], // born 1987
  lin_manuel_miranda: [35, 40], // born 1980
  alex_lacamoire: [39, 45], // born 1975
  amy: [34, 44], // Mayim Bialik, born 1975; Amy 2010–2019
  bernadette: [28, 39], // Melissa Rauch, born 1980; 2009–2019
  howard: [26, 39], // Simon Helberg, born 1980
  leonard: [32, 44], // Johnny Galecki, born 1975
  penny: [21, 34], // Kaley Cuoco, born 1985
  raj: [26, 38], // Kunal Nayyar, born 1981
  sheldon: [34, 46], // Jim Parsons, born 1973
  stuart: [38, 49], // Kevin Sussman, born 1970; 2009–2019
  stock_teen_5: [13, 22],
  stock_teen_6: [13, 22],
  stock_teen_7: [13, 22],
  stock_teen_8: [13, 22],
  stock_teen_a: [13, 22],
};

/** years from `age` to the range (0 inside it) */
function yearsOutside(age: number, [lo, hi]: readonly [number, number]): number {
  return age < lo ? lo - age : age > hi ? age - hi : 0;
}

type Demo = NonNullable<EvalFace['demographics']>;
const topRace = (d: Demo) => Object.entries(d.race).sort((a, b) => b[1] - a[1])[0]![0];

export interface VariantScore {
  variant: string;
  faces: number;
  raceAgree: number;
  genderAgree: number;
  meanAgeDiff: number;
  genderCorrect: number;
  genderLabelled: number;
  raceCorrect: number;
  raceLabelled: number;
  /** faces whose age falls in the identity's public range, of those with a range */
  ageInRange: number;
  ageLabelled: number;
  /** mean years outside the range over the labelled faces (0 inside) */
  meanYearsOutside: number;
}

/** Scores one variant's faces against the reference variant's faces (same files, same order: pure). */
export function scoreVariant(
  variant: string,
  reference: (Demo | undefined)[],
  candidate: (Demo | undefined)[],
  male: (boolean | undefined)[],
  race: (string | undefined)[] = [],
  ageRange: (readonly [number, number] | undefined)[] = [],
): VariantScore {
  let faces = 0;
  let raceAgree = 0;
  let genderAgree = 0;
  let ageDiff = 0;
  let genderCorrect = 0;
  let genderLabelled = 0;
  let raceCorrect = 0;
  let raceLabelled = 0;
  let ageInRange = 0;
  let ageLabelled = 0;
  let yearsOut = 0;
  for (let i = 0; i < reference.length; i++) {
    const r = reference[i];
    const c = candidate[i];
    if (!r || !c) continue;
    faces++;
    if (topRace(r) === topRace(c)) raceAgree++;
    if (r.male > 0.5 === c.male > 0.5) genderAgree++;
    ageDiff += Math.abs(r.age - c.age);
    if (male[i] !== undefined) {
      genderLabelled++;
      if (c.male > 0.5 === male[i]) genderCorrect++;
    }
    if (race[i] !== undefined) {
      raceLabelled++;
      if (topRace(c) === race[i]) raceCorrect++;
    }
    const range = ageRange[i];
    if (range) {
      ageLabelled++;
      const out = yearsOutside(c.age, range);
      if (out === 0) ageInRange++;
      yearsOut += out;
    }
  }
  return {
    variant,
    faces,
    raceAgree,
    genderAgree,
    meanAgeDiff: faces ? ageDiff / faces : NaN,
    genderCorrect,
    genderLabelled,
    raceCorrect,
    raceLabelled,
    ageInRange,
    ageLabelled,
    meanYearsOutside: ageLabelled ? yearsOut / ageLabelled : NaN,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { variants: { type: 'string', default: '176+agegender:age,198+agegender,198+agegender:age,198,198+faceres,160+agegender:age' }, 'no-write': { type: 'boolean', default: false } } });
  const variants = values.variants.split(',').map((v) => v.trim());
  const files: ManifestFile[] = loadEvalSets().faces;
  const byVariant = new Map<string, (Demo | undefined)[]>();
  await withBrowserSession({ callTimeoutMs: 600_000 }, async (session) => {
    await session.open('/tools/eval/pages/eval.html');
    for (const variant of variants) {
      const settings = parseVariant(variant);
      const out: (Demo | undefined)[] = [];
      for (const file of files) {
        const r = await session.call<EvalResult>('analyzeFile', absolutePath(file), { demographics: settings });
        // the largest face is the identity's (faces/ holds one person per image)
        out.push(r.ok ? r.image.faces[0]?.demographics : undefined);
      }
      byVariant.set(variant, out);
      console.log(`${variant}: ${out.filter(Boolean).length} faces`);
    }
  });
  const male = files.map((f) => KNOWN_MALE[f.identity ?? '']);
  const reference = byVariant.get(variants[0]!)!;
  const race = files.map((f) => KNOWN_RACE[f.identity ?? '']);
  const ages = files.map((f) => KNOWN_AGE[f.identity ?? '']);
  const scores = variants.map((v) => scoreVariant(v, reference, byVariant.get(v)!, male, race, ages));
  const describe = (v: string) => describeVariant(parseVariant(v));
  const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / Math.max(1, b)).toFixed(0)}%)`;
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run eval:attributes\` (tools/eval/attributes.ts); regenerate rather than edit.`,
    '',
    `The ${files.length} images of ../shared/data/faces through /detect's demographics, each variant of the models; agreement is with ${describe(variants[0]!)} on the same face. Gender is also scored against the ${Object.keys(KNOWN_MALE).length} identities' known gender, the top ethnicity against the ${Object.keys(KNOWN_RACE).length} identities whose ethnicity is public (${race.filter(Boolean).length} faces, mostly white), the age against the range of ages the photos of ${Object.keys(KNOWN_AGE).length} identities can show (${ages.filter(Boolean).length} faces; birth years are public, the ranges are wide: tools/eval/attributes.ts).`,
    '',
    '| demographics | faces | top ethnicity agrees | gender agrees | mean age difference (years) | gender correct (labelled) | top ethnicity correct (labelled) | age in range (labelled) | mean years outside the range |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...scores.map(
      (s) =>
        `| ${describe(s.variant)} | ${s.faces} | ${pct(s.raceAgree, s.faces)} | ${pct(s.genderAgree, s.faces)} | ${s.meanAgeDiff.toFixed(1)} | ${pct(s.genderCorrect, s.genderLabelled)} | ${pct(s.raceCorrect, s.raceLabelled)} | ${pct(s.ageInRange, s.ageLabelled)} | ${s.meanYearsOutside.toFixed(1)} |`,
    ),
  ];
  const table = lines.join('\n');
  console.log(table);
  if (!values['no-write']) writeBetweenMarkers(DOC, { start: START, end: END }, `## Attributes\n\n${table}`, { template: `# Accuracy\n\n${START}\n${END}\n`, appendMarkers: true });
}

await main();
