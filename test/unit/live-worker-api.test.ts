// The live API's idle hook: after each frame it hands the worker's model registry to the hook that
// queues the worker's idle work (the code-cache warm-up, which vision.worker.ts puts behind a
// setTimeout so the frame's answer goes out first), whether the frame was answered or refused. The registry's warm-up itself
// is tested in model-registry-code-cache.test.ts; frames with real models in test/browser/live.test.ts.
import { describe, expect, it } from 'vitest';
import type { CropRenderer } from '../../src/worker/crop-renderer.ts';
import { liveWorkerApi } from '../../src/worker/live-session.ts';
import type { ModelRegistry } from '../../src/worker/model-registry.ts';

describe('liveWorkerApi afterFrame', () => {
  it('is called with the registry once the frame is done with, answered or not', async () => {
    const models = { name: 'registry' } as unknown as ModelRegistry;
    const events: string[] = [];
    const api = liveWorkerApi(async () => ({ models }), {} as CropRenderer, (m) => events.push(m === models ? 'idle work' : 'wrong registry'));
    const frame = { close: () => events.push('frame closed') } as unknown as ImageBitmap;
    await expect(api.liveFrame(404, frame, 0)).rejects.toThrow('live session 404 is closed');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(events).toEqual(['frame closed', 'idle work']);
  });
});
