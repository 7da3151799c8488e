// The slices of ../shared/data/manifest.json that `npm run eval` scores. The data stays in
// ../shared/data (never copied here); the page fetches it through vite's /@fs route.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { projectRoot } from '../harness/browser-session.ts';

export const DATA_DIR = resolve(projectRoot, '../shared/data');

export interface ManifestFile {
  path: string;
  kind: string;
  face_count: number | null;
  width: number | null;
  height: number | null;
  label?: string | null;
  identity?: string | null;
  expression_hint?: string | null;
  notes?: string | null;
}

export interface EvalSets {
  groups: ManifestFile[];
  faces: ManifestFile[];
  /** still images only: a video is not something analyze() takes */
  negatives: ManifestFile[];
  expressions: ManifestFile[];
}

export function loadEvalSets(): EvalSets {
  const manifest = JSON.parse(readFileSync(resolve(DATA_DIR, 'manifest.json'), 'utf8')) as { files: ManifestFile[] };
  const under = (dir: string, kind: string) => manifest.files.filter((f) => f.path.startsWith(`${dir}/`) && f.kind === kind);
  const sets = {
    groups: under('groups', 'group'),
    faces: under('faces', 'identity'),
    negatives: under('negatives', 'negative'),
    expressions: under('expressions', 'expression'),
  };
  for (const [name, files] of Object.entries(sets)) if (!files.length) throw new Error(`manifest has no ${name} images`);
  return sets;
}

export const absolutePath = (f: ManifestFile): string => resolve(DATA_DIR, f.path);

/** The manifest marks hand counts it is unsure of in the notes. */
export const isApproximate = (f: ManifestFile): boolean => /approximate/i.test(f.notes ?? '');
