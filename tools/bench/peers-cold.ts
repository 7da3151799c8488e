// bench:peers' cold starts in Chromium (Playwright: a fresh browser context per run, the bytes of
// every response): navigation → each library's first answer on a small (the 640×480 face) and a
// large first photo, in the configuration the server was started with (with or without
// COOP/COEP); with a second visit in a browser profile on disk after each small-photo run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { chromiumArgs, chromiumPath } from '../browser-env.ts';
import type { Served } from '../harness/browser-session.ts';
import { callOnNewPage } from '../harness/page-call.ts';
import { cpuSnapshot, othersShare } from './cpu-load.ts';
import type { EngineBuild } from './pages/peer-adapter.ts';
import type { PeerCold } from './pages/peer-frame.ts';
import { FRAME } from './peers-browsers.ts';
import { SINGLE_ID, fetchKind, inlineSourceMapBytes, peerOrder, type Config, type FetchedResponse, type Peer } from './peers-data.ts';
import { ms, waitForIdle } from './report.ts';

const COLD_TIMEOUT_MS = 180_000;
/** after a cold start, how long the page stays open before the revisit: V8 writes its WASM code cache a few seconds after tier-up */
export const REVISIT_AFTER_MS = 5000;

export interface ColdRun {
  peer: Peer;
  /** which first photo: the small single face or the largest data photo */
  first: 'small' | 'large';
  result: PeerCold;
  /** responses that finished before the first result, with their body bytes */
  responses: FetchedResponse[];
  /** small first photo only: the page's second visit in a browser profile on disk (HTTP and V8 code caches kept) */
  revisit?: PeerCold;
}

export interface ColdOptions {
  config: Config;
  coldRuns: number;
  revisit: boolean;
  engineBuild: EngineBuild;
  engineLibDir?: string;
  tfjsNativeThreads: boolean;
  /** the data path of the large first photo */
  largePhoto: string;
  waitIdle: number;
  /** called with the runs so far after each */
  onRun?: (colds: ColdRun[]) => void;
}

/**
 * Opens `path` in a new browser context (empty HTTP and code caches) and returns what its
 * coldStart() resolves to, with the responses that finished before it resolved.
 */
async function coldStart(browser: Browser, baseUrl: string, path: string): Promise<{ result: PeerCold; responses: FetchedResponse[] }> {
  const context = await browser.newContext();
  try {
    const finished: Promise<FetchedResponse>[] = [];
    const seen = new Set<string>();
    context.on('requestfinished', (request) => {
      // each URL once: a module the page and a worker both import is fetched once
      const url = request.url();
      // blob: and data: URLs (tfjs's thread workers) are made in the page, not fetched
      if (seen.has(url) || !/^https?:/.test(url)) return;
      seen.add(url);
      finished.push(
        (async () => {
          // the body itself: Playwright's responseBodySize is 0 or negative for some worker requests
          const body = await (await request.response())?.body().catch(() => undefined);
          if (!body) return { url, bytes: await request.sizes().then((s) => Math.max(0, s.responseBodySize), () => 0) };
          return { url, bytes: body.length, ...(fetchKind(url) === 'code' ? { sourceMapBytes: inlineSourceMapBytes(body.toString('latin1')) } : {}) };
        })(),
      );
    });
    const result = await callOnNewPage<PeerCold>(context, baseUrl, path, 'coldStart', { timeoutMs: COLD_TIMEOUT_MS });
    // the responses that finished until the first answer
    const before = finished.length;
    return { result, responses: await Promise.all(finished.slice(0, before)) };
  } finally {
    await context.close().catch(() => {});
  }
}

/**
 * A returning visitor: a fresh browser profile on disk (a new context's in-memory cache does not
 * keep ORT's 14 MB WASM: measured, a second visit there downloaded it again) visits `path` once,
 * stays a few seconds so V8 can write its WASM code cache, closes the page, and
 * opens it again; returns what the second visit's coldStart() resolves to.
 */
async function secondVisit(baseUrl: string, path: string): Promise<PeerCold> {
  const profile = mkdtempSync(join(tmpdir(), 'peers-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, args: chromiumArgs, headless: true });
  try {
    await callOnNewPage<PeerCold>(context, baseUrl, path, 'coldStart', { timeoutMs: COLD_TIMEOUT_MS });
    await new Promise((r) => setTimeout(r, REVISIT_AFTER_MS));
    await Promise.all(context.pages().map((p) => p.close()));
    return await callOnNewPage<PeerCold>(context, baseUrl, path, 'coldStart', { timeoutMs: COLD_TIMEOUT_MS });
  } finally {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  }
}

/** where the engine's first answer went (its diagnostics), for the cold-start log line */
export function firstAnswerNote(result: PeerCold): string {
  const first = result.runtime.firstAnswer;
  if (!first) return '';
  const stages = Object.entries(first.stages).filter(([k, v]) => k !== 'total' && v >= 1);
  return (
    ` (started ${ms(result.ready)}; createEngine ${ms(first.startupMs)} ms; first /detect in the worker ${ms(first.stages.total ?? Number.NaN)} ms: ` +
    `${stages.map(([k, v]) => `${k} ${ms(v)}`).join(', ')}; model loads ${first.modelLoads.map((l) => `${l.id} ${ms(l.loadMs)}`).join(', ')})`
  );
}

/** `coldRuns` cold starts per library and first photo, the libraries' order rotating run by run. */
export async function measureCold(o: ColdOptions, server: Served): Promise<{ colds: ColdRun[]; othersCold: number | undefined }> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
  const colds: ColdRun[] = [];
  let othersCold: number | undefined;
  const firsts = [
    { first: 'small', photo: SINGLE_ID },
    { first: 'large', photo: o.largePhoto },
  ] as const;
  try {
    for (let r = 0; r < o.coldRuns; r++) {
      for (const [f, { first, photo }] of firsts.entries()) {
        for (const peer of peerOrder(r + f)) {
          const query = new URLSearchParams({
            peer,
            threads: String(o.config.threads),
            mode: 'cold',
            photo,
            engine: o.engineBuild,
            ...(o.engineLibDir ? { lib: o.engineLibDir } : {}),
            ...(o.tfjsNativeThreads ? { tfjs: 'native' } : {}),
          });
          await waitForIdle(o.waitIdle);
          const snapshot = cpuSnapshot();
          const { result, responses } = await coldStart(browser, server.baseUrl, `${FRAME}?${query}`);
          const others = othersShare(snapshot, cpuSnapshot());
          if (others !== undefined) othersCold = Math.max(othersCold ?? 0, others);
          if (result.crossOriginIsolated !== o.config.isolation) throw new Error(`${peer}'s cold page is${o.config.isolation ? ' not' : ''} cross-origin isolated`);
          // (not in the load count: the second visit's own browser has exited by the next snapshot, so its CPU would read as others')
          const revisit = first === 'small' && o.revisit ? await secondVisit(server.baseUrl, `${FRAME}?${query}`) : undefined;
          console.log(`cold start ${r + 1}/${o.coldRuns} (${o.config.label}), ${first} first photo, ${peer}: ${ms(result.firstResult)} ms${firstAnswerNote(result)}`);
          if (revisit) console.log(`  revisit: ${ms(revisit.firstResult)} ms${firstAnswerNote(revisit)}`);
          colds.push({ peer, first, result, responses, ...(revisit ? { revisit } : {}) });
          o.onRun?.(colds);
        }
      }
    }
  } finally {
    await browser.close().catch(() => {});
  }
  return { colds, othersCold };
}
