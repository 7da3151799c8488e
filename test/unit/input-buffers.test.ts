// Model input buffers lent per run (src/worker/input-buffers.ts): exact lengths, reuse after a
// give, never the same buffer to two takers at once.
import { describe, expect, it } from 'vitest';
import { InputBuffers } from '../../src/worker/input-buffers.ts';

describe('InputBuffers', () => {
  it('lends exactly the length asked for, and the same memory again once given back', () => {
    const buffers = new InputBuffers();
    const first = buffers.take(300);
    expect(first.length).toBe(300);
    buffers.give(first);
    const smaller = buffers.take(120);
    expect(smaller.length).toBe(120);
    expect(smaller.buffer).toBe(first.buffer);
    buffers.give(smaller);
    // the whole buffer went back, not only the 120 floats lent last
    expect(buffers.take(300).buffer).toBe(first.buffer);
  });

  it('gives two takers two buffers', () => {
    const buffers = new InputBuffers();
    const a = buffers.take(64);
    const b = buffers.take(64);
    expect(a.buffer).not.toBe(b.buffer);
    a.fill(1);
    b.fill(2);
    expect(a[0]).toBe(1);
  });

  it('takes a new buffer when none idle is large enough, and keeps the four largest', () => {
    const buffers = new InputBuffers();
    const taken = [10, 20, 30, 40, 50].map((n) => buffers.take(n));
    for (const t of taken) buffers.give(t);
    const big = buffers.take(60);
    expect(taken.some((t) => t.buffer === big.buffer)).toBe(false);
    // the 10-float buffer was dropped: a take of 5 now gets the 20-float one
    expect(buffers.take(5).buffer).toBe(taken[1]!.buffer);
  });
});
