// `npx tsx tools/diagnose/decode-probe.ts [--browser webkit|chromium|firefox] [--calls N]`: the
// engine's decode stage (timings.decode) beside the whole call and a page-side createImageBitmap of
// the same 640×480 JPEG, one-thread page (no COOP/COEP). Medians; prints JSON.
import { parseArgs } from 'node:util';
import { serveDev } from '../harness/browser-session.ts';
import { launchBrowser, type BrowserName } from '../harness/browsers.ts';

const { values } = parseArgs({ options: { browser: { type: 'string', default: 'webkit' }, calls: { type: 'string', default: '9' }, rebuilt: { type: 'boolean', default: false }, busy: { type: 'string', default: '0' } } });
const PAGE = '/tools/diagnose/pages/decode-probe.html';
const served = await serveDev({ optimizeEntries: [PAGE], isolation: false });
const browser = await launchBrowser(values.browser as BrowserName, { timeoutMs: 240_000 });
try {
  await browser.open(served.baseUrl + PAGE);
  await browser.evaluate('new Promise((r) => { const t = setInterval(() => { if (globalThis.decodeProbe) { clearInterval(t); r(true); } }, 50); })');
  const result = await browser.evaluate(`globalThis.decodeProbe(${Number(values.calls)}, ${values.rebuilt}, ${Number(values.busy)})`, { timeoutMs: 240_000, what: 'decodeProbe' });
  console.log(JSON.stringify({ browser: browser.version, ...(result as object) }, null, 1));
} finally {
  await browser.close();
  await served.close();
}
