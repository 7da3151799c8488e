// Runs in the recognition eval page: the real engine (IndexedDB gallery, enroll, recognize) for
// tools/eval/bbt-groups.ts. The engine is created on the first call, in its own storage.
import { createEngine, type Engine } from '../../../src/index.ts';
import { expose } from '../../harness/page.ts';

let engine: Promise<Engine> | undefined;

export interface BbtEnrollResult {
  ok: boolean;
  /** error code and message when enroll failed (no face, several faces …) */
  error?: string;
}

export interface BbtFace {
  /** top candidate (engine threshold applies) and its confidence; none when no candidate */
  subject?: string;
  confidence?: number;
}

export type BbtRecognizeResult = { ok: true; faces: BbtFace[] } | { ok: false; error: string };

const blobOf = async (absPath: string) => {
  const response = await fetch(`/@fs${absPath}`);
  if (!response.ok) throw new Error(`fetch ${absPath}: HTTP ${response.status}`);
  return response.blob();
};

function bbtStart(storageName: string): Promise<string> {
  engine ??= createEngine({ backend: 'wasm', storageName });
  return engine.then((e) => e.storageName);
}

async function bbtEnroll(absPath: string, subject: string, gallery: string): Promise<BbtEnrollResult> {
  const e = await engine!;
  const r = await e.enroll({ image: await blobOf(absPath), subject_id: subject, gallery_name: gallery });
  if ('Errors' in r) return { ok: false, error: JSON.stringify(r.Errors) };
  return { ok: true };
}

async function bbtRecognize(absPath: string, gallery: string): Promise<BbtRecognizeResult> {
  const e = await engine!;
  const r = await e.recognize({ image: await blobOf(absPath), gallery_name: gallery });
  if ('Errors' in r) return { ok: false, error: JSON.stringify(r.Errors) };
  return {
    ok: true,
    faces: r.images.map((i) => {
      const top = i.candidates?.[0];
      return top ? { subject: top.subject_id, confidence: top.confidence } : {};
    }),
  };
}

expose({ bbtStart, bbtEnroll, bbtRecognize });
