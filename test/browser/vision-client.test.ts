// The main thread's handle on the vision worker never waits forever: a worker whose script
// fails to load, and one that stops answering (a thread stuck or killed, here a stand-in
// worker spinning forever), fail their calls with 3001 within the watchdog's bound, and the
// next call runs on a fresh worker with the same init environment replayed. A worker lost while
// it starts has its call sent once more to a fresh worker.
import { describe, expect, it } from 'vitest';
import frozenStartWorkerUrl from './helpers/frozen-start-worker.ts?worker&url';
import hangingWorkerUrl from './helpers/hanging-worker.ts?worker&url';
import { startVisionWorker } from '../../src/engine/vision-client.ts';
import { EngineError } from '../../src/errors.ts';

type Api = Record<string, (...args: unknown[]) => Promise<unknown>>;

describe('vision worker client', () => {
  it('a worker whose script does not load fails the call with 3001 instead of hanging', async () => {
    const vision = startVisionWorker(new URL('/no-such-worker.js', location.href));
    const error = await (vision.api as unknown as Api).backendInfo!().catch((e: unknown) => e);
    vision.terminate();
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).failure.code).toBe(3001);
    expect((error as EngineError).message).toMatch(/vision worker could not start/);
  });

  it('a worker that stops answering is declared dead within the bound, and the next call gets a fresh one', async () => {
    const vision = startVisionWorker(new URL(hangingWorkerUrl, location.href), { unresponsiveMs: 1500, pingEveryMs: 250 });
    const api = vision.api as unknown as Api;
    const first = (await api.init!({ backend: 'wasm' })) as { startedAt: number };
    const begun = performance.now();
    const error = await api.hang!().catch((e: unknown) => e);
    expect(performance.now() - begun).toBeLessThan(10_000);
    expect((error as EngineError).failure).toMatchObject({ code: 3001 });
    expect((error as EngineError).message).toMatch(/stopped answering.*waiting on hang \(\d+ s\).*restarted/);

    const after = (await api.backendInfo!()) as { startedAt: number; env: unknown };
    expect(vision.restarts()).toBe(1);
    expect(after.env).toEqual({ backend: 'wasm' }); // init replayed into the new worker
    expect(after.startedAt).not.toBe(first.startedAt);
    vision.terminate();
  });

  it('a worker frozen while it starts is found within the start bound and the call is sent once more to a fresh one', async () => {
    const vision = startVisionWorker(new URL(frozenStartWorkerUrl, location.href), { startUnresponsiveMs: 1500 });
    const begun = performance.now();
    const error = await (vision.api as unknown as Api).init!({ backend: 'wasm' }).catch((e: unknown) => e);
    // two workers, each given up after ~1.5 s of silence (pinged every second)
    expect(performance.now() - begun).toBeLessThan(10_000);
    expect((error as EngineError).failure).toMatchObject({ code: 3001 });
    expect((error as EngineError).message).toMatch(/stopped answering for 2 s \(while it was starting: ONNX Runtime or its model peer; waiting on init/);
    expect(vision.restarts()).toBe(1);
    vision.terminate();
  });
});
