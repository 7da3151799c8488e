// Fair scheduling of media jobs and the pure parts of the source handling.
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/errors.ts';
import { sampleTimes } from '../../src/media/frames.ts';
import { FairQueue, JobScheduler, type Outcome } from '../../src/media/queue.ts';
import { mediaFileName, sniffMedia } from '../../src/media/source.ts';

interface J {
  appId: string;
  id: string;
  steps: number;
}

describe('FairQueue', () => {
  it('accounts take turns; each account is first come, first served', () => {
    const q = new FairQueue<J>();
    for (const [appId, id] of [['a', 'a1'], ['a', 'a2'], ['a', 'a3'], ['b', 'b1'], ['c', 'c1'], ['b', 'b2']] as const) q.push({ appId, id, steps: 1 });
    expect(q.size).toBe(6);
    const order: string[] = [];
    for (let j = q.shift(); j; j = q.shift()) order.push(j.id);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });
  it('removes a queued job', () => {
    const q = new FairQueue<J>();
    q.push({ appId: 'a', id: '1', steps: 1 });
    q.push({ appId: 'b', id: '2', steps: 1 });
    expect(q.remove('a', '1')).toBe(true);
    expect(q.remove('a', '1')).toBe(false);
    expect(q.has('b', '2')).toBe(true);
    expect(q.shift()?.id).toBe('2');
    expect(q.shift()).toBeUndefined();
  });
});

describe('JobScheduler', () => {
  function harness(maxActive = 2) {
    const trace: string[] = [];
    const done = new Map<string, Outcome<string>>();
    const finished: Record<string, () => void> = {};
    const closed: string[] = [];
    const scheduler = new JobScheduler<J, string>({
      maxActive,
      async *run(job, signal) {
        try {
          for (let k = 0; k < job.steps; k++) {
            await new Promise((r) => setTimeout(r, 1));
            signal.throwIfAborted();
            if (job.id === 'bad') throw new EngineError('IMAGE_DECODE', 'broken');
            trace.push(`${job.id}:${k}`);
            yield;
          }
          return `${job.id} ok`;
        } finally {
          closed.push(job.id);
        }
      },
      done(job, outcome) {
        done.set(job.id, outcome);
        finished[job.id]?.();
      },
    });
    const until = (id: string) => new Promise<void>((r) => (done.has(id) ? r() : (finished[id] = r)));
    return { scheduler, trace, done, closed, until };
  }

  it('interleaves running jobs step by step: a short job behind a long one finishes early', async () => {
    const { scheduler, trace, done, until } = harness();
    scheduler.enqueue({ appId: 'a', id: 'long', steps: 20 });
    scheduler.enqueue({ appId: 'a', id: 'short', steps: 2 });
    await until('short');
    expect(done.get('short')).toEqual({ ok: true, value: 'short ok' });
    expect(trace.filter((t) => t.startsWith('long')).length).toBeLessThanOrEqual(3);
    await until('long');
    expect(done.get('long')).toEqual({ ok: true, value: 'long ok' });
    await scheduler.stop();
  });

  it('admits at most maxActive jobs at once, fairly across accounts', async () => {
    const { scheduler, trace, until } = harness(1);
    scheduler.enqueue({ appId: 'a', id: 'a1', steps: 1 });
    scheduler.enqueue({ appId: 'a', id: 'a2', steps: 1 });
    scheduler.enqueue({ appId: 'b', id: 'b1', steps: 1 });
    await until('a2');
    expect(trace).toEqual(['a1:0', 'b1:0', 'a2:0']);
    await scheduler.stop();
  });

  it('reports a failing job and goes on with the others', async () => {
    const { scheduler, done, until } = harness();
    scheduler.enqueue({ appId: 'a', id: 'bad', steps: 3 });
    scheduler.enqueue({ appId: 'a', id: 'good', steps: 3 });
    await until('good');
    await until('bad');
    const bad = done.get('bad')!;
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error instanceof EngineError).toBe(true);
    await scheduler.stop();
  });

  it('cancels a running job (its finally runs, nothing is reported) and a queued one', async () => {
    const { scheduler, done, closed, trace, until } = harness(1);
    scheduler.enqueue({ appId: 'a', id: 'x', steps: 1000 });
    scheduler.enqueue({ appId: 'a', id: 'y', steps: 5 });
    scheduler.enqueue({ appId: 'a', id: 'z', steps: 1 });
    while (trace.length < 3) await new Promise((r) => setTimeout(r, 2));
    expect(scheduler.isRunning('a', 'x')).toBe(true);
    expect(scheduler.cancel('a', 'y')).toBe(true);
    expect(scheduler.cancel('a', 'x')).toBe(true);
    expect(scheduler.cancel('a', 'nope')).toBe(false);
    await until('z');
    expect(closed).toContain('x');
    expect(done.has('x')).toBe(false);
    expect(trace.some((t) => t.startsWith('y'))).toBe(false);
    await scheduler.stop();
  });

  it('stop() aborts everything and ends the loop', async () => {
    const { scheduler, closed, done } = harness();
    scheduler.enqueue({ appId: 'a', id: 'x', steps: 1000 });
    await new Promise((r) => setTimeout(r, 20));
    await scheduler.stop();
    expect(closed).toEqual(['x']);
    expect(done.size).toBe(0);
    scheduler.enqueue({ appId: 'a', id: 'late', steps: 1 });
    expect(scheduler.pending).toBe(0);
  });
});

describe('media sources', () => {
  const bytes = (...parts: (number[] | string)[]) =>
    new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));

  it('sniffs JPEG, PNG, WebM, Matroska, MP4 and QuickTime by their magic bytes', () => {
    expect(sniffMedia(bytes([0xff, 0xd8, 0xff, 0xe0], Array(20).fill(0)))).toEqual({ type: 'image', mimeType: 'image/jpeg' });
    expect(sniffMedia(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], Array(20).fill(0)))).toEqual({ type: 'image', mimeType: 'image/png' });
    expect(sniffMedia(bytes([0x1a, 0x45, 0xdf, 0xa3], '\x9fB\x86\x81\x01B\xf7\x81\x01B\x82\x84webm'))).toEqual({ type: 'video', mimeType: 'video/webm' });
    expect(sniffMedia(bytes([0x1a, 0x45, 0xdf, 0xa3], '\x9fB\x82\x88matroska'))).toEqual({ type: 'video', mimeType: 'video/x-matroska' });
    expect(sniffMedia(bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0]))).toEqual({ type: 'video', mimeType: 'video/mp4' });
    expect(sniffMedia(bytes([0, 0, 0, 0x14], 'ftypqt  ', [0, 0, 0, 0]))).toEqual({ type: 'video', mimeType: 'video/quicktime' });
    // every still format intake knows is an image here too (the engine's formats option decides later)
    expect(sniffMedia(bytes('GIF89a', Array(20).fill(0)))).toEqual({ type: 'image', mimeType: 'image/gif' });
    expect(sniffMedia(bytes([0, 0, 0, 0x1c], 'ftypavif', [0, 0, 0, 0], 'mif1miaf'))).toEqual({ type: 'image', mimeType: 'image/avif' });
    // strict mode (the engine's formats: JPEG, PNG) refuses them here, at POST
    expect(() => sniffMedia(bytes('GIF89a', Array(20).fill(0)), ['jpeg', 'png'])).toThrow(/GIF images are not accepted; send JPEG, PNG/);
  });

  it('rejects other formats with 5000, naming them when it can', () => {
    const code = (b: Uint8Array) => {
      try {
        sniffMedia(b);
        return undefined;
      } catch (e) {
        return e instanceof EngineError ? `${e.failure.code} ${e.message}` : String(e);
      }
    };
    expect(code(bytes([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0]))).toMatch(/^5000 .*HEIC/);
    expect(code(bytes('%PDF-1.7', Array(20).fill(0)))).toMatch(/^5000 .*PDF/);
    expect(code(bytes('hello world, not media'))).toMatch(/^5000 unsupported media format/);
    expect(code(new Uint8Array())).toMatch(/^5000 .*empty/);
  });

  it('media_info.file: the file name, the URL path’s last segment, else "media"', () => {
    expect(mediaFileName(new File([''], 'clip.mp4'))).toBe('clip.mp4');
    expect(mediaFileName(new Blob(['']))).toBe('media');
    expect(mediaFileName('https://example.com/a/b/my%20video.webm?x=1')).toBe('my video.webm');
    expect(mediaFileName('https://example.com/')).toBe('media');
    expect(mediaFileName('data:video/mp4;base64,AAAA')).toBe('media');
  });

  it('samples at 0, 1/fps, 2/fps … before the end', () => {
    expect(sampleTimes(1, 5)).toEqual([0, 200, 400, 600, 800]);
    expect(sampleTimes(1.01, 5)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(sampleTimes(0.5, 3)).toEqual([0, 333]);
    expect(sampleTimes(0.02, 5)).toEqual([0]);
    expect(sampleTimes(0, 5)).toEqual([0]);
    expect(sampleTimes(10.02, 5)).toHaveLength(51);
  });
});
