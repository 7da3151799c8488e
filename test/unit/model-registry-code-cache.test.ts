// ModelRegistry's code-cache warm-up (manifest `codeCacheWarmUp`): once a model that asks for it
// has run, warmCodeCache() creates and releases two throwaway sessions of it at level 'all', once,
// and leaves the session in use alone (answers must not change). The backend here records what
// the registry asks of it (the registry's bookkeeping is under test); the shipped manifest and
// model files are real, and ORT's own sessions run in the browser tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OrtBackend } from '../../src/worker/ort-backend.ts';
import { ModelRegistry } from '../../src/worker/model-registry.ts';
import { MODELS_DIR } from './helpers/shipped-models.ts';

interface RecordedSession {
  level: string;
  released: boolean;
  runs: number;
}

function recordingBackend(failAt?: string) {
  const created: RecordedSession[] = [];
  const backend = {
    async createSession(_model: Uint8Array, level: string) {
      if (level === failAt) throw new Error(`no session at ${level}`);
      const record: RecordedSession = { level, released: false, runs: 0 };
      created.push(record);
      return {
        async run() {
          if (record.released) throw new Error('run on a released session');
          record.runs++;
          return { out: { data: new Float32Array(1), dims: [1], dispose() {} } };
        },
        async release() {
          record.released = true;
        },
      };
    },
    tensor: (data: Float32Array, dims: readonly number[]) => ({ data, dims }),
    // every call into ORT goes through the backend (it queues them on WebGPU)
    run: (session: { run(feeds: unknown): Promise<unknown> }, feeds: unknown) => session.run(feeds),
    release: (session: { release(): Promise<void> }) => session.release(),
    owns: () => true,
  };
  return { backend: backend as unknown as OrtBackend, created };
}

const open = (backend: OrtBackend) => ModelRegistry.open(backend, (file) => `https://models.test/${file}`, 30_000);
const run = (registry: ModelRegistry, id: string) => registry.run(id, new Float32Array(1), [1]);

describe('ModelRegistry code-cache warm-up', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', async (url: string) => new Response(readFileSync(join(MODELS_DIR, new URL(url).pathname.slice(1)))));
  });
  afterEach(() => vi.unstubAllGlobals());

  it('after a model has run: two throwaway sessions at level all, released, once; the session in use stays', async () => {
    const { backend, created } = recordingBackend();
    const registry = await open(backend);
    expect(registry.entry('facemesh').codeCacheWarmUp).toBe(true);

    await registry.load('facemesh');
    await registry.warmCodeCache();
    expect(created.map((s) => s.level), 'nothing before its first run').toEqual(['disabled']);

    await run(registry, 'facemesh');
    expect(registry.codeCacheWarmUpPending, 'answers schedule it while it is to come').toBe(true);
    await registry.warmCodeCache();
    expect(registry.codeCacheWarmUpPending, 'and stop scheduling it once done').toBe(false);
    expect(created.map((s) => [s.level, s.released])).toEqual([
      ['disabled', false],
      ['all', true],
      ['all', true],
    ]);

    await run(registry, 'facemesh');
    expect(created[0]!.runs, 'runs stay on the first session').toBe(2);
    await registry.warmCodeCache();
    expect(created, 'once per model').toHaveLength(3);
  });

  it('leaves models that do not ask for it alone', async () => {
    const { backend, created } = recordingBackend();
    const registry = await open(backend);
    expect(registry.entry('liveness').codeCacheWarmUp).toBeUndefined();
    await run(registry, 'liveness');
    expect(registry.codeCacheWarmUpPending).toBe(false);
    await registry.warmCodeCache();
    expect(created.map((s) => s.level)).toEqual(['disabled']);
  });

  it('a failed throwaway session changes nothing', async () => {
    const { backend, created } = recordingBackend('all');
    const registry = await open(backend);
    await run(registry, 'facemesh');
    await expect(registry.warmCodeCache()).resolves.toBeUndefined();
    await run(registry, 'facemesh');
    expect(created.map((s) => [s.level, s.released, s.runs])).toEqual([['disabled', false, 2]]);
  });
});
