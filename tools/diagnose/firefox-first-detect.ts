// Repeats Firefox's cold engine start and first detect (what test/engines/firefox.test.ts does
// first) in fresh browsers against one production build, to catch the rare hang of that first
// detect (docs/testing.md). Each round: launch Firefox, open the flows page, createEngine,
// detect obama.jpg, close. Prints each round's times and the rounds that ran out of time; after a
// hang, whether a new engine answers, in the same page and in the reloaded page.
//   npx tsx tools/diagnose/firefox-first-detect.ts [rounds=20] [boundMs=60000]
// Load the machine meanwhile (three `node -e 'for(;;){}' &`: about 1 round in 40 hung) to reproduce
// the conditions; Firefox's own log: MOZ_LOG=timestamp,sync,WorkerPrivate:5 MOZ_LOG_FILE=/tmp/ff-%PID.log
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { launchBrowser, type DrivenBrowser } from '../harness/browsers.ts';
import { serveBuiltSite } from '../harness/built-site.ts';
import { base64File, pageCall, PHOTOS, typeOf, waitInPage } from '../../test/engines/page-calls.ts';
import { FLOWS_PAGE, PROJECT_ROOT } from '../../test/engines/paths.ts';

const rounds = Number(process.argv[2] ?? 20);
const boundMs = Number(process.argv[3] ?? 60_000);
const outDir = resolve(PROJECT_ROOT, `test-results/diagnose-ff-${process.pid}`);
mkdirSync(outDir, { recursive: true });
const site = await serveBuiltSite(PROJECT_ROOT, outDir, [FLOWS_PAGE]);
const failures: string[] = [];

/** After a hang: a second engine in the same page, then one in the reloaded page, each with one detect. */
async function retryAfterHang(b: DrivenBrowser, round: number): Promise<string> {
  const attempt = async (what: string): Promise<string> => {
    const t = Date.now();
    try {
      await pageCall(b, 'start', [{ storageName: `diagnose-${round}-${what}` }], boundMs);
      await pageCall(b, 'detect', ['obama.jpg'], boundMs);
      return `${what}: answered in ${Date.now() - t} ms`;
    } catch (error) {
      return `${what}: ${String(error).split('\n')[0]}`;
    }
  };
  const samePage = await attempt('new engine, same page');
  await b.open(new URL(FLOWS_PAGE, site.baseUrl).href);
  await waitInPage(b, 'globalThis.__harness', boundMs, 'the flows page to load');
  await pageCall(b, 'putFile', ['obama.jpg', base64File(PHOTOS['obama.jpg']), typeOf(PHOTOS['obama.jpg'])], 30_000);
  return `${samePage}; ${await attempt('reloaded page')}`;
}
try {
  for (let round = 1; round <= rounds; round++) {
    let browser: DrivenBrowser | undefined;
    const t0 = Date.now();
    const times: Record<string, number> = {};
    const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
      const t = Date.now();
      try {
        return await run();
      } finally {
        times[name] = Date.now() - t;
      }
    };
    try {
      browser = await step('launch', () => launchBrowser('firefox', { timeoutMs: boundMs }));
      const b = browser;
      await step('open', () => b.open(new URL(FLOWS_PAGE, site.baseUrl).href));
      await waitInPage(b, 'globalThis.__harness', boundMs, 'the flows page to load');
      await pageCall(b, 'putFile', ['obama.jpg', base64File(PHOTOS['obama.jpg']), typeOf(PHOTOS['obama.jpg'])], 30_000);
      await step('start', () => pageCall(b, 'start', [{ storageName: `diagnose-${round}` }], boundMs));
      const { answer } = await step('detect', () => pageCall(b, 'detect', ['obama.jpg'], boundMs));
      const faces = answer.images?.[0]?.faces?.length;
      console.log(`round ${round} ${new Date(t0).toISOString()}: ok, faces ${faces}, ms ${JSON.stringify(times)}`);
    } catch (error) {
      const line = `round ${round} ${new Date(t0).toISOString()}: FAILED after ${JSON.stringify(times)}: ${String(error).split('\n')[0]}`;
      console.log(line);
      // does a fresh engine (a new vision worker) recover, in the same page and after a reload?
      const retries = browser ? await retryAfterHang(browser, round) : 'no browser';
      console.log(`round ${round}: after the hang: ${retries}`);
      failures.push(`${line}; after it: ${retries}`);
    } finally {
      await browser?.close();
    }
  }
} finally {
  await site.close();
  rmSync(outDir, { recursive: true, force: true });
}
console.log(`${rounds - failures.length}/${rounds} rounds answered within ${boundMs} ms`);
for (const f of failures) console.log(f);
