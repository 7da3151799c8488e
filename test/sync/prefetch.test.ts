// The pull's page feed (src/sync/prefetch.ts) over a log of five pages: pages come in order,
// the next is asked for as soon as the one before arrived, never more than `ahead` unread,
// and a failed request reaches the reader at that page.
import { expect, it } from 'vitest';
import { prefetchPages } from '../../src/sync/prefetch.ts';
import type { PullResponse } from '../../src/sync/protocol.ts';

const page = (n: number, last: number): PullResponse => ({ changes: [], cursor: String(n), more: n < last, remaining: last - n });
const settle = () => new Promise((r) => setTimeout(r, 0));

it('pages in order, at most `ahead` fetched unread, a failure at its page', async () => {
  const asked: string[] = [];
  const feed = prefetchPages(async (after) => (asked.push(after), page(Number(after) + 1, 5)), '0', 2);
  await settle();
  expect(asked).toEqual(['0', '1']); // two ahead, then it waits for the reader
  const cursors: string[] = [];
  for (;;) {
    const p = await feed.next();
    cursors.push(p.cursor);
    await settle();
    if (!p.more) break;
  }
  expect(cursors).toEqual(['1', '2', '3', '4', '5']);
  expect(asked).toEqual(['0', '1', '2', '3', '4']); // nothing asked past the last page

  const failing = prefetchPages(async (after) => {
    if (after === '1') throw new TypeError('offline');
    return page(Number(after) + 1, 5);
  }, '0', 2);
  expect((await failing.next()).cursor).toBe('1');
  await expect(failing.next()).rejects.toThrow('offline');
});
