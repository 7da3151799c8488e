// A pull's pages fetched ahead of their writing: each page is asked for as soon as the one
// before it arrived (its cursor is all the next request needs), up to `ahead` pages waiting
// unread, so the service's query, compression and the transfer overlap the browser's writes
// instead of alternating with them (bench:sync --bootstrap).
import type { PullResponse } from './protocol.ts';

export interface PageFeed {
  /** the next page in order (rejects with that page's request failure) */
  next(): Promise<PullResponse>;
}

export function prefetchPages(fetchPage: (after: string) => Promise<PullResponse>, from: string, ahead: number): PageFeed {
  const waiting: Promise<PullResponse>[] = [];
  /** the cursor to ask from when the feed paused (ahead pages unread), else undefined */
  let paused: string | undefined;
  let ended = false;
  const request = (after: string) => {
    const page = fetchPage(after);
    waiting.push(page);
    page.then(
      (p) => {
        if (!p.more) ended = true;
        else if (waiting.length < ahead) request(p.cursor);
        else paused = p.cursor;
      },
      () => (ended = true), // the failure reaches the reader with this page
    );
  };
  request(from);
  return {
    next() {
      const page = waiting.shift();
      if (!page) return Promise.reject(new Error('the pull has no more pages'));
      if (paused !== undefined && !ended) {
        const after = paused;
        paused = undefined;
        request(after);
      }
      return page;
    },
  };
}
