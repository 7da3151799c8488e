// The run queue shared by the vision worker's ORT and its model peer (src/worker/run-scheduler.ts):
// who takes which run, and what happens when the peer dies. The runtimes here are timers standing
// in for ORT (the real pair runs in test/browser/model-peer.test.ts).
import { describe, expect, it } from 'vitest';
import { RunScheduler, type RunLane } from '../../src/worker/run-scheduler.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const input = () => new Float32Array(1) as Float32Array<ArrayBuffer>;

/** A runtime that takes `ms` per run and records which runs it did. */
function lane(name: string, ms: number, options: { accepts?: (id: string) => boolean; failOn?: string } = {}) {
  const done: string[] = [];
  const l: RunLane<string> & { done: string[] } = {
    done,
    accepts: options.accepts ?? (() => true),
    async run(id) {
      await sleep(ms);
      if (id === options.failOn) throw new Error(`${name} died`);
      done.push(id);
      return `${id}@${name}`;
    },
  };
  return l;
}

describe('RunScheduler', () => {
  it('spreads queued runs over both runtimes, each taking the next when free', async () => {
    const peer = lane('peer', 20);
    const here = lane('here', 10);
    const s = new RunScheduler([peer, here]);
    const out = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => s.submit(id, input(), [1])));
    expect(out.map((o) => o.split('@')[0])).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    // the peer took the first run; the faster local runtime did more of the rest
    expect(peer.done[0]).toBe('a');
    expect(here.done.length).toBeGreaterThan(peer.done.length);
    expect(peer.done.length).toBeGreaterThan(0);
    expect(s.runs).toEqual([peer.done.length, here.done.length]);
  });

  it('a runtime without a pause is free for the run its answer leads to; one with a pause is not', async () => {
    const peer = lane('peer', 5);
    const here = { ...lane('here', 5), pause: () => sleep(20) };
    const s = new RunScheduler([peer, here]);
    // a stage's run on the peer, then the next stage's run, queued as soon as the first answers
    await s.submit('mesh', input(), [1]).then(() => s.submit('gear', input(), [1]));
    expect(peer.done).toEqual(['mesh', 'gear']);
    expect(here.done).toEqual([]);
    // the local runtime's pause keeps it busy for the runs its own answer leads to: they go to the peer
    const local = new RunScheduler([here, peer]);
    await local.submit('mesh', input(), [1]).then(() => local.submit('gear', input(), [1]));
    expect(here.done).toEqual(['mesh']);
    expect(peer.done).toEqual(['mesh', 'gear', 'gear']);
  });

  it('a run queued ahead is taken before the runs already waiting', async () => {
    const here = lane('here', 5);
    const s = new RunScheduler([here]);
    const queued = ['a', 'b', 'c'].map((id) => s.submit(id, input(), [1]));
    // 'a' is under way; 'tail' goes before 'b' and 'c'
    queued.push(s.submit('tail', input(), [1], true));
    await Promise.all(queued);
    expect(here.done).toEqual(['a', 'tail', 'b', 'c']);
  });

  it('a runtime only gets runs of models it accepts', async () => {
    const peer = lane('peer', 1, { accepts: (id) => id === 'gear' });
    const here = lane('here', 1);
    const s = new RunScheduler([peer, here]);
    await Promise.all(['mesh', 'mesh', 'mesh'].map((id) => s.submit(id, input(), [1])));
    expect(peer.done).toEqual([]);
    expect(here.done).toHaveLength(3);
  });

  it('a fatal failure retires the runtime and its run is redone by another; an ordinary error reaches the caller', async () => {
    const peer = lane('peer', 1, { failOn: 'gear' });
    const here = lane('here', 5, { failOn: 'broken' });
    const s = new RunScheduler([peer, here], { isFatal: (e) => String(e).includes('peer died') });
    expect(await s.submit('gear', input(), [1])).toBe('gear@here');
    // retired: the peer takes nothing more
    await Promise.all(['a', 'b'].map((id) => s.submit(id, input(), [1])));
    expect(peer.done).toEqual([]);
    await expect(s.submit('broken', input(), [1])).rejects.toThrow('here died');
  });
});
