// ModelRegistry's idle upgrade (manifest `idleSessionOptimization`): a session is created at its
// first-use level, re-created at its idle level once the model has run and the worker calls
// upgradeIdleSessions(), and the session it replaces is released only after its last run. The
// backend here records what the registry asks of it (the registry's bookkeeping is under test);
// the shipped manifest and model files are real, and ORT's own sessions run in the browser tests.
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
  /** resolves the session's pending run, if one is held */
  finishRun?: () => void;
  holdRuns: boolean;
}

function recordingBackend(failAt?: string) {
  const created: RecordedSession[] = [];
  const backend = {
    async createSession(_model: Uint8Array, level: string) {
      if (level === failAt) throw new Error(`no session at ${level}`);
      const record: RecordedSession = { level, released: false, runs: 0, holdRuns: false };
      created.push(record);
      return {
        record,
        async run() {
          if (record.released) throw new Error('run on a released session');
          record.runs++;
          if (record.holdRuns) await new Promise<void>((resolve) => (record.finishRun = resolve));
          return { out: { data: new Float32Array(1), dims: [1], dispose() {} } };
        },
        async release() {
          record.released = true;
        },
      };
    },
    tensor: (data: Float32Array, dims: readonly number[]) => ({ data, dims }),
  };
  return { backend: backend as unknown as OrtBackend, created };
}

const open = (backend: OrtBackend) => ModelRegistry.open(backend, (file) => `https://models.test/${file}`);
const run = (registry: ModelRegistry, id: string) => registry.run(id, new Float32Array(1), [1]);

describe('ModelRegistry idle upgrade', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', async (url: string) => new Response(readFileSync(join(MODELS_DIR, new URL(url).pathname.slice(1)))));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('re-creates a model that has run at its idle level and swaps it in, releasing the old session after its last run', async () => {
    vi.useFakeTimers();
    const { backend, created } = recordingBackend();
    const registry = await open(backend);
    expect(registry.entry('facemesh').idleSessionOptimization).toBe('all');

    await registry.load('facemesh');
    await registry.upgradeIdleSessions();
    expect(created.map((s) => s.level), 'nothing before its first run').toEqual(['disabled']);

    await run(registry, 'facemesh');
    const first = created[0]!;
    first.holdRuns = true;
    const pending = run(registry, 'facemesh'); // still running on the old session during the swap
    await registry.upgradeIdleSessions();
    expect(created.map((s) => s.level)).toEqual(['disabled', 'all', 'all']);
    expect(created[1]!.released, 'the extra creation is released at once').toBe(true);
    expect(((await registry.load('facemesh')).session as unknown as { record: RecordedSession }).record).toBe(created[2]);

    await vi.advanceTimersByTimeAsync(5000);
    expect(first.released, 'not while its run is under way').toBe(false);
    first.finishRun!();
    await pending;
    await vi.advanceTimersByTimeAsync(0);
    expect(first.released).toBe(true);

    await run(registry, 'facemesh');
    expect(created[2]!.runs).toBe(1);
    await registry.upgradeIdleSessions();
    expect(created, 'once per model').toHaveLength(3);
  });

  it('leaves models without an idle level alone', async () => {
    const { backend, created } = recordingBackend();
    const registry = await open(backend);
    expect(registry.entry('liveness').idleSessionOptimization).toBeUndefined();
    await run(registry, 'liveness');
    await registry.upgradeIdleSessions();
    expect(created.map((s) => s.level)).toEqual(['disabled']);
  });

  it('keeps the session in use when the re-creation fails', async () => {
    const { backend, created } = recordingBackend('all');
    const registry = await open(backend);
    await run(registry, 'facemesh');
    await registry.upgradeIdleSessions();
    expect(created).toHaveLength(1);
    expect(created[0]!.released).toBe(false);
    await run(registry, 'facemesh');
    expect(created[0]!.runs).toBe(2);
  });
});
