// The demo app's main flows in any browser (the last steps of test/engines/flows.ts): load the
// page until its engine is ready, detect a photo, and on the Galleries screen enroll a person and
// recognise them. The demo is driven from inside the page — files handed to its file inputs
// through a DataTransfer and a change event, fields filled and buttons clicked by script — since
// the three drivers share no way to upload a file; what the user would see is then read back
// from the same elements test/e2e/ asserts on.
import { expect, it } from 'vitest';
import type { BrowserName, DrivenBrowser } from '../../tools/harness/browsers.ts';
import { base64File, pageCall, PHOTOS, waitInPage } from './page-calls.ts';

interface DemoContext {
  name: BrowserName;
  /** a step's bound in this browser, from Chromium's */
  limit(chromiumMs: number): number;
  /** the test's timeout for a step of that bound */
  step(chromiumMs: number): number;
  report: Record<string, unknown>;
  baseUrl(): string;
}

/** Defined in the demo page once it has loaded: hands files to an input, fills a field. */
const HELPERS = `(globalThis.__demo = {
  files: new Map(),
  put(name, base64, type) { this.files.set(name, new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type })); return true; },
  give(input, names) {
    if (!input) throw new Error('no file input there');
    const data = new DataTransfer();
    for (const n of names) data.items.add(this.files.get(n));
    input.files = data.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
    return true;
  },
  fill(input, value) {
    if (!input) throw new Error('no field there');
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
    return true;
  },
}, true)`;

const text = (selector: string) => `(document.querySelector(${JSON.stringify(selector)})?.textContent ?? '')`;

export function demoFlows(browser: () => DrivenBrowser, c: DemoContext): void {
  const run = (expression: string, chromiumMs: number, what: string) => browser().evaluate(expression, { timeoutMs: c.limit(chromiumMs), what });

  it('demo: the page loads and its engine gets ready', async () => {
    // the flows' engine ends first: two engines' models on 2 cores would slow both
    await pageCall(browser(), 'stop', [], 10_000).catch(() => {});
    const t = Date.now();
    await browser().open(`${c.baseUrl()}/`, c.limit(60_000));
    const state = await waitInPage(browser(), "document.body.dataset.engine === 'ready' || document.body.dataset.engine === 'failed' ? document.body.dataset.engine : ''", c.limit(90_000), 'the demo engine to get ready');
    c.report.demoReadyMs = Date.now() - t;
    expect(state).toBe('ready');
    await run(HELPERS, 10_000, 'installing the demo helpers');
    for (const file of ['obama.jpg', 'obama2.jpg']) await run(`__demo.put(${JSON.stringify(file)}, ${JSON.stringify(base64File(PHOTOS[file as keyof typeof PHOTOS]))}, 'image/jpeg')`, 30_000, `handing ${file} to the page`);
  }, c.step(160_000));

  it('demo: Detect & analyse marks the face of a photo', async () => {
    const detect = async (chromiumMs: number) => {
      // the pick clears the screen's notice at once (src/demo/sections/detect.ts), a previous error too
      await run("__demo.give(document.querySelector('#panel-detect input[type=file]'), ['obama.jpg'])", 10_000, 'picking a photo on Detect');
      // the summary, or the error notice the screen shows instead (fails at once with its text)
      return waitInPage(
        browser(),
        `(/found in obama\\.jpg/.test(${text('#panel-detect .summary')}) && ${text('#panel-detect .summary')}) || (${text('#panel-detect .notice.error')}.trim() && 'error: ' + ${text('#panel-detect .notice.error')})`,
        c.limit(chromiumMs),
        'the Detect summary',
      );
    };
    let shown = await detect(90_000);
    // 3001 "the vision worker stopped answering for 60 s … send this one again": the engine's
    // watchdog (src/engine/vision-client.ts) found its worker silent and replaced it. Seen once in
    // Firefox in 4 full runs and never reproduced since (docs/testing.md, "Every browser engine"):
    // the engine's contract is a fresh worker for the next request, so the test sends the photo
    // again, once, says so loudly and keeps what the page showed in the browser's report
    if (/vision worker stopped answering/.test(shown)) {
      const seen = { shown, models: await run("document.body.dataset.models ?? ''", 10_000, 'reading the warm-up state'), pageErrors: browser().pageErrors.slice(-5) };
      c.report.demoDetectRetried = seen;
      console.warn(`[engines] ${c.name}: the demo's Detect answered 3001 (worker replaced); sending the photo again: ${JSON.stringify(seen)}`);
      shown = await detect(40_000);
    }
    expect(shown).toMatch(/^1 face found in obama\.jpg/);
    expect(await run("document.querySelectorAll('#panel-detect .face-card').length", 10_000, 'counting face cards')).toBe(1);
  }, c.step(90_000) + c.step(40_000) + 20_000);

  it('demo: Galleries enrolls a person and recognises them in another photo', async () => {
    await run("(location.hash = '#galleries', true)", 10_000, 'opening Galleries');
    await waitInPage(browser(), "document.querySelector('#panel-galleries form.enroll') && !document.querySelector('#panel-galleries').hidden", c.limit(20_000), 'the Galleries screen');
    await run(
      `(() => { const f = document.querySelector('#panel-galleries form.enroll');
        __demo.fill(f.querySelector('input[name=gallery_name]'), 'friends');
        __demo.fill(f.querySelector('input[name=subject_id]'), 'Obama');
        __demo.give(f.querySelector('input[type=file]'), ['obama.jpg']);
        const submit = f.querySelector('button[type=submit]');
        if (submit.disabled) throw new Error('Enroll stayed disabled after the photo was picked');
        submit.click(); return true; })()`,
      10_000,
      'enrolling on Galleries',
    );
    const enrolled = await waitInPage(browser(), `${text('#panel-galleries form.enroll .results')}`, c.limit(90_000), 'the enroll result');
    expect(enrolled).toMatch(/obama\.jpg enrolled \(quality 0\.\d\d\)/);
    // the recognise card's gallery list fills once the directory refreshes after the enroll
    const section = "[...document.querySelectorAll('#panel-galleries section')].find((s) => /Recognise people/.test(s.querySelector('h3')?.textContent ?? ''))";
    await waitInPage(browser(), `[...(${section})?.querySelectorAll('select option') ?? []].some((o) => o.value === 'friends')`, c.limit(20_000), 'friends in the recognise card');
    await run(
      `(() => { const s = ${section};
        __demo.fill(s.querySelector('select'), 'friends');
        __demo.give(s.querySelector('input[type=file]'), ['obama2.jpg']); return true; })()`,
      10_000,
      'recognising on Galleries',
    );
    const names = await waitInPage(
      browser(),
      `(${section}).querySelector('.names')?.textContent || ((${section}).querySelector('.notice.error')?.textContent && 'error: ' + (${section}).querySelector('.notice.error').textContent)`,
      c.limit(60_000),
      'the recognised names',
    );
    expect(names).toMatch(/Obama/);
  }, c.step(190_000));
}
