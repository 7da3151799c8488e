// This engine's full /detect with selector LIVENESS through the public API (createEngine),
// on ORT-web's wasm backend (see peer-adapter.ts); by default from the npm package's build, one
// ESM file and its worker, as an app loads it (the source modules one by one with engineBuild 'src').
import type * as EngineModule from '../../../src/index.ts';
import { engineLibEntry, type StartPeer } from './peer-adapter.ts';

export const start: StartPeer = async ({ threads, engineBuild, engineLibDir }) => {
  // everything from the engine's own entry: a static import of a src/ module here (its error
  // codes) made vite's dev server load it and zod module by module before the engine could start
  // (~0.4 s of every cold start, charged to the engine)
  const { createEngine, ERRORS } = (
    engineBuild === 'lib' ? await import(/* @vite-ignore */ engineLibEntry(engineLibDir)) : await import('../../../src/index.ts')
  ) as Pick<typeof EngineModule, 'createEngine' | 'ERRORS'>;
  const engine = await createEngine({ backend: 'wasm', numThreads: threads });
  // where the first answer's time goes (printed with bench:peers' cold starts), and each call's decode stage
  let firstStages: Record<string, number> | undefined;
  let lastDecodeMs = Number.NaN;
  engine.diagnostics.onTimings((event) => {
    firstStages ??= { ...event.timings };
    lastDecodeMs = event.timings.decode;
  });
  return {
    peer: 'engine',
    async detect(photo) {
      lastDecodeMs = Number.NaN;
      const response = await engine.detect({ image: photo, selector: 'LIVENESS' });
      // the worker's decode stage of this call (reported before detect() answers; NaN if it was not)
      const decodeMs = lastDecodeMs;
      if ('Errors' in response) {
        if (response.Errors[0]?.ErrCode === ERRORS.NO_FACES.code) return { faces: 0, decodeMs };
        throw new Error(`/detect failed: ${JSON.stringify(response.Errors)}`);
      }
      return { faces: response.images[0]!.faces.length, decodeMs };
    },
    async runtime() {
      const b = engine.backend;
      const modelLoads = await engine.diagnostics.modelLoads();
      return {
        backend: `ORT-web ${b.backend}`,
        threads: b.threads,
        models: modelLoads.map((l) => l.id),
        firstAnswer: { startupMs: engine.diagnostics.startupMs, modelLoads, stages: firstStages ?? {} },
      };
    },
    close: () => engine.close(),
  };
};
