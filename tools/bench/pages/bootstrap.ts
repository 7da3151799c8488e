// Runs in tools/bench/pages/bootstrap.html: createEngine with sync on a fresh profile, the pull
// followed through syncStatus() (cursor and progress), then a /recognize against the pulled gallery.
import { createEngine, type Engine } from '../../../src/engine/engine.ts';
import type { SyncOptionsInput } from '../../../src/sync/index.ts';
import { expose } from '../../harness/page.ts';

export interface BootstrapResult {
  /** createEngine resolved */
  createMs: number;
  /** syncStatus().cursor reached the service's last change */
  pulledMs: number;
  /** the first /recognize against the gallery answered (index read and built, models run) */
  recognizedMs: number;
  /** cursor and syncStatus().progress at each second, for the progress line */
  progress: { ms: number; cursor: number; pulled: number; total: number | null }[];
  candidates: number;
}

let engine: Engine | undefined;

async function bootstrap(sync: SyncOptionsInput, lastSeq: number, gallery: string, photoBase64: string, timeoutMs: number): Promise<BootstrapResult> {
  const started = performance.now();
  engine = await createEngine({ sync, numThreads: 1 });
  const createMs = performance.now() - started;
  const progress: BootstrapResult['progress'] = [];
  let lastLog = 0;
  for (;;) {
    const status = engine.syncStatus();
    const now = performance.now() - started;
    if (now - lastLog >= 1000) {
      progress.push({ ms: now, cursor: Number(status.cursor), pulled: status.progress.pulled, total: status.progress.total });
      lastLog = now;
    }
    if (Number(status.cursor) >= lastSeq) break;
    if (now > timeoutMs) throw new Error(`pulled to ${status.cursor} of ${lastSeq} in ${Math.round(now / 1000)} s (state ${status.state}${status.error ? `: ${status.error.message}` : ''})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const pulledMs = performance.now() - started;
  const answer = await engine.recognize({ image: photoBase64, gallery_name: gallery });
  const recognizedMs = performance.now() - started;
  if ('Errors' in answer) throw new Error(`recognize: ${JSON.stringify(answer.Errors)}`);
  const candidates = answer.images?.[0]?.candidates?.length ?? 0;
  return { createMs, pulledMs, recognizedMs, progress, candidates };
}

expose({ bootstrap, close: () => engine?.close() });
