// createEngine() outside a browser (Node, a server render): a typed error that says what is
// missing and where to call it, instead of "ReferenceError: Worker is not defined".
import { describe, expect, it } from 'vitest';
import { missingBrowserFeatures, requireBrowser } from '../../src/engine/platform.ts';
import { createEngine, EngineError, UnsupportedEnvironmentError } from '../../src/index.ts';
import { createEngine as createPackageEngine } from '../../src/package/index.ts';

describe('createEngine in Node', () => {
  for (const [entry, create] of [['src/index.ts', createEngine], ['the package entry', createPackageEngine]] as const) {
    it(`${entry}: rejects with UnsupportedEnvironmentError naming Worker and IndexedDB and where to call it`, async () => {
      const error = await create().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UnsupportedEnvironmentError);
      expect(error).toBeInstanceOf(EngineError);
      const e = error as UnsupportedEnvironmentError;
      expect(e.missing).toEqual(expect.arrayContaining(['Worker', 'indexedDB']));
      expect(e.message).toMatch(/needs a browser page: Worker, indexedDB/);
      expect(e.message).toMatch(/Node\.js/);
      expect(e.message).toMatch(/useEffect/);
      expect(e.failure).toMatchObject({ kind: 'UNAVAILABLE', code: 3001 });
    });
  }

  it('a scope with every feature passes; one without a worker names only that', () => {
    const page = { Worker: class {}, indexedDB: {}, WebAssembly: {}, OffscreenCanvas: class {}, createImageBitmap: () => {}, document: {} };
    expect(missingBrowserFeatures(page)).toEqual([]);
    expect(() => requireBrowser(page)).not.toThrow();
    const { Worker: _, ...noWorker } = page;
    expect(() => requireBrowser(noWorker)).toThrow(/needs a browser page: Worker is not available here\. Call it/);
  });
});
