// Runs in the eval page: a video through the real engine's POST /v2/media (engine.mediaPost),
// polling engine.mediaGet while the job answers 202 / status_code 2, reduced to the person ids
// per sampled frame for tools/eval/video-report.ts. The engine is created on the first call.
import { createEngine, type Engine } from '../../../src/index.ts';
import { expose } from '../../harness/page.ts';

let engine: Promise<Engine> | undefined;

export type VideoResult =
  | { ok: true; length: number; wallMs: number; frames: { time: number; personIds: string[] }[] }
  | { ok: false; error: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function analyzeVideo(absPath: string, storageName: string, limitMs = 600_000): Promise<VideoResult> {
  engine ??= createEngine({ backend: 'wasm', storageName });
  const e = await engine;
  const response = await fetch(`/@fs${absPath}`);
  if (!response.ok) return { ok: false, error: `fetch ${absPath}: HTTP ${response.status}` };
  const source = new File([await response.blob()], absPath.split('/').pop()!);
  const started = performance.now();
  let r: unknown = await e.mediaPost({ source, timeout: 60 });
  for (;;) {
    const body = r as { code?: number; message?: string; id?: string; status_code?: number | string; status_message?: string; frames?: unknown };
    if (body.code !== undefined) return { ok: false, error: `${body.code}: ${body.message}` };
    if (Number(body.status_code) === 4 && Array.isArray(body.frames)) break;
    if (Number(body.status_code) !== 2 || !body.id) return { ok: false, error: `unexpected answer: ${JSON.stringify(body).slice(0, 300)}` };
    if (performance.now() - started > limitMs) return { ok: false, error: `still processing after ${limitMs} ms` };
    await sleep(1000);
    r = await e.mediaGet({ id: body.id });
  }
  const media = r as { length: number; frames: { time: number; people: { person_id: string }[] }[] };
  return {
    ok: true,
    length: media.length,
    wallMs: Math.round(performance.now() - started),
    frames: media.frames.map((f) => ({ time: f.time, personIds: f.people.map((p) => p.person_id) })),
  };
}

expose({ analyzeVideo });
