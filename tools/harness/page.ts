// Page side of the browser harness: a page registers the functions a Node script may call
// (tools/harness/browser-session.ts → session.call(name, ...args)). Arguments and results
// cross the boundary as JSON-like values (structured by Playwright), so keep them plain.

/* eslint-disable @typescript-eslint/no-explicit-any */
export type HarnessFn = (...args: any[]) => unknown;

/** What the page installs on globalThis; the Node side only reads it. */
export interface HarnessGlobal {
  fns: Record<string, HarnessFn>;
}

declare global {
  // eslint-disable-next-line no-var
  var __harness: HarnessGlobal | undefined;
}

/** Makes `fns` callable from Node. May be called more than once; later names win. */
export function expose(fns: Record<string, HarnessFn>): void {
  globalThis.__harness = { fns: { ...globalThis.__harness?.fns, ...fns } };
}
