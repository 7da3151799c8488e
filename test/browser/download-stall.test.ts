// A model download that stops sending (here over real HTTP: the test server's /__stall/ route
// answers 200, sends 16 bytes and then nothing) ends after `downloadStallMs` of silence: the
// request answers 3001 naming the model instead of waiting forever, and the engine stays usable.
import { afterAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import { createEngine, type Engine } from '../../src/index.ts';

let engine: Engine | undefined;
afterAll(() => engine?.close());

describe('a stalled model download', () => {
  it('answers 3001 within the bound, naming the model, and the next request tries again', async () => {
    engine = await createEngine({
      backend: 'wasm',
      downloadStallMs: 1500,
      modelFiles: { 'gear.onnx': new URL('/__stall/gear.onnx', location.href).href },
      storageName: 'download-stall',
    });
    const image = await (await fetch(obamaUrl)).blob();
    for (let attempt = 0; attempt < 2; attempt++) {
      const begun = performance.now();
      const answer = await engine.detect({ image });
      expect(performance.now() - begun).toBeLessThan(30_000);
      expect(answer).toMatchObject({ Errors: [{ ErrCode: 3001 }] });
      expect(JSON.stringify(answer)).toMatch(/download of model gear stopped \(no data for 1.5 s\)/);
    }
  });
});
