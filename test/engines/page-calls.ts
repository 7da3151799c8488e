// The test data the engines flows hand to pages, and the two calls they make into a page: a
// function the flows page exposed, and a wait for a condition, each bounded.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DrivenBrowser } from '../../tools/harness/browsers.ts';
import { DATA_DIR } from './paths.ts';

export const PHOTOS = {
  'obama.jpg': 'faces/obama/obama.jpg',
  'obama2.jpg': 'faces/obama/obama2.jpg',
  'obama3.jpg': 'faces/obama/obama3.jpg',
  'biden.jpg': 'faces/biden/biden.jpg',
  'biden2.jpg': 'faces/biden/biden2.jpg',
  'biden2_exif6.jpg': 'faces/biden/biden2_exif_orientation6.jpg',
} as const;
/** The clips /v2/media may get, most preferred first: the one the browser says it plays is used. */
export const CLIPS = [
  { name: 'synthetic_panzoom_biden_vp9.webm', path: 'video/synthetic_panzoom_biden_vp9.webm', type: 'video/webm; codecs="vp9"' },
  { name: 'faceapi_bbt_5frames.mp4', path: 'video/faceapi_bbt_5frames.mp4', type: 'video/mp4; codecs="avc1.42E01E"' },
] as const;

export const base64File = (path: string) => readFileSync(resolve(DATA_DIR, path)).toString('base64');
export const typeOf = (path: string) => (path.endsWith('.webm') ? 'video/webm' : path.endsWith('.mp4') ? 'video/mp4' : 'image/jpeg');

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Calls a function the flows page exposed (tools/harness/page.ts), bounded. */
export function pageCall(browser: DrivenBrowser, fn: string, args: unknown[], timeoutMs: number): Promise<Json> {
  return browser.evaluate(`globalThis.__harness.fns[${JSON.stringify(fn)}](...${JSON.stringify(args)})`, { timeoutMs, what: `${fn}()` });
}

/** Waits (in the page, bounded) until `condition` (an expression) is truthy. */
export function waitInPage(browser: DrivenBrowser, condition: string, timeoutMs: number, what: string): Promise<Json> {
  return browser.evaluate(
    // the page stops polling by itself too, so a timed-out wait leaves no loop behind
    `(async () => { const until = Date.now() + ${timeoutMs}; for (;;) { const v = (${condition}); if (v) return v; ` +
      `if (Date.now() > until) throw new Error(${JSON.stringify(`waited ${timeoutMs} ms for ${what}`)}); await new Promise((r) => setTimeout(r, 100)); } })()`,
    { timeoutMs: timeoutMs + 2000, what },
  );
}

