// Emotion video, driven like a user: upload a clip and watch the progress, then the
// playback with boxes and person ids, a timeline chart of the six emotions per person
// (clicking it seeks the video) and the analytics impressions; a clip without faces and a
// file that is not a video get clear messages; a webcam recording is analysed; the
// developer panel shows the requests; earlier analyses can be reopened and deleted; the
// screen works at phone width, and a refused camera is explained.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { openApp, startApp, stopApp, type App } from './app.ts';
import { data } from './paths.ts';

const BIDEN = 'video/synthetic_panzoom_biden_vp9.webm';
const NO_FACE = 'video/negative_testsrc2_noface_vp9.webm';

const panel = (page: Page) => page.locator('#panel-emotion');
const fileInput = (page: Page) => panel(page).getByLabel('Video to analyse').locator('input[type=file]');
const summary = (page: Page) => panel(page).locator('.emotion-result .summary');
const notice = (page: Page) => panel(page).locator('.notice');

let browser: Browser;
let app: App;

beforeAll(async () => void ({ browser, app } = await startApp('face', { path: '/#emotion' })));
afterAll(() => stopApp({ browser, app }));

/** Counts the overlay canvas's painted pixels (boxes and labels over the video). */
function paintedPixels(canvas: Locator): Promise<number> {
  return canvas.evaluate((c: HTMLCanvasElement) => {
    const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
    return n;
  });
}

/** The result every analysed video shows: playback with the overlay, one chart and one impression per person. */
async function expectResult(page: Page, people: number): Promise<void> {
  const result = panel(page).locator('.emotion-result');
  expect(await result.isVisible()).toBe(true);
  // playback: the video with the faces drawn over it, in step with the video
  const video = result.locator('video.playback-video');
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(2);
  await expect.poll(() => paintedPixels(result.locator('canvas.playback-overlay'))).toBeGreaterThan(100);
  // what each person shows right now
  expect(await result.locator('.now-person').count()).toBe(people);
  expect(await result.locator('.now-person').first().textContent()).toMatch(/^Person 1/);
  // one chart per person, six emotion lines each, with axis labels, a legend and an accessible title
  const charts = result.locator('figure.timeline');
  expect(await charts.count()).toBe(people);
  const chart = charts.first();
  const series = chart.locator('path.series');
  expect(await series.count()).toBe(6);
  expect(await series.evaluateAll((paths) => paths.map((p) => p.getAttribute('data-emotion')))).toEqual(['anger', 'disgust', 'fear', 'joy', 'sadness', 'surprise']);
  for (const d of await series.evaluateAll((paths) => paths.map((p) => p.getAttribute('d') ?? ''))) expect(d).toMatch(/^M[\d.]+ [\d.]+l0\.01 0L/);
  expect(await chart.locator('svg[role=img] title').textContent()).toMatch(/^Person 1: the six emotions over \d+\.\d s of video$/);
  expect(await chart.locator('svg.timeline-svg').textContent()).toContain('Time (seconds)');
  expect(await chart.locator('svg.timeline-svg').textContent()).toContain('Emotion (%)');
  expect(await chart.locator('.legend li').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^Joyavg \d+%$/)]));
  // the impressions from GET /v2/analytics
  const impressions = result.locator('.impression');
  expect(await impressions.count()).toBe(people);
  const first = (await impressions.first().textContent()) ?? '';
  expect(first).toMatch(/^Person 1/);
  expect(first).toMatch(/Age group(Child|Young Adult|Adult|Senior)/);
  expect(first).toMatch(/Gender(Male|Female)/);
  expect(first).toMatch(/Duration\d+\.\d s/);
  expect(first).toMatch(/Dwell\d+\.\d s in view/);
  expect(first).toMatch(/Glances\d+/);
  expect(first).toMatch(/positive \d+%.*neutral \d+%.*negative \d+%/);
  expect(await impressions.first().getByRole('meter', { name: 'Joy' }).getAttribute('aria-valuenow')).toMatch(/^\d+$/);
  expect(await impressions.first().getByRole('meter', { name: 'Attention' }).getAttribute('aria-valuenow')).toMatch(/^\d+$/);
}

describe('Emotion video', () => {
  test('an uploaded video: progress, then playback with person ids, emotion charts and impressions', async () => {
    const { page } = app;
    await fileInput(page).setInputFiles(data(BIDEN));
    // progress shows at once, and becomes determinate as frames are analysed
    const bar = notice(page).locator('progress');
    await bar.waitFor({ state: 'visible', timeout: 30_000 });
    const determinate = await expect
      .poll(() => bar.evaluate((p: HTMLProgressElement) => p.position).catch(() => -1), { timeout: 60_000, interval: 50 })
      .toBeGreaterThan(0)
      .then(
        () => true,
        () => false,
      );
    if (determinate) {
      expect(await notice(page).textContent()).toMatch(/Analysing the video: \d+% of the frames/);
      await app.screenshot('emotion-upload-progress');
    }
    await expect.poll(() => summary(page).textContent(), { timeout: 120_000 }).toMatch(/^1 person in synthetic_panzoom_biden_vp9\.webm · 5\.0 s of video · 25 frames analysed$/);
    expect(await notice(page).textContent()).toContain('Analysed synthetic_panzoom_biden_vp9.webm: 1 person');
    await expectResult(page, 1);

    // clicking the middle of the chart moves the video (and every playhead) there
    const video = panel(page).locator('video.playback-video');
    const plot = panel(page).locator('.timeline-svg').first();
    const box = (await plot.boundingBox())!;
    await plot.click({ position: { x: 46 + (box.width - 46 - 14) / 2, y: box.height / 2 } });
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(2);
    expect(await video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeLessThan(3);
    expect(await panel(page).locator('.now-time').textContent()).toMatch(/^2\.\d s$/);
    // the keyboard moves it one sampled frame at a time
    await plot.locator('..').focus();
    const before = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(before + 0.05);
    const after = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
    expect(after).toBeLessThanOrEqual(before + 0.2 + 0.002);
    // on a sampled frame: the readout says the same time
    expect(Math.round(after * 1000) % 200).toBe(1);
    // playing moves the playhead and the readout with the video
    await video.evaluate((v: HTMLVideoElement) => {
      v.currentTime = 0;
      return v.play();
    });
    await expect.poll(() => panel(page).locator('.timeline-svg .playhead text').first().textContent(), { timeout: 10_000 }).toMatch(/^[1-4]\.\d s$/);
    await video.evaluate((v: HTMLVideoElement) => v.pause());
    // listed under earlier analyses
    const item = panel(page).locator('.history-item');
    expect(await item.count()).toBe(1);
    expect(await item.first().textContent()).toMatch(/^synthetic_panzoom_biden_vp9\.webm.*5\.0 s · 1 person/);
    expect(await item.first().getAttribute('aria-current')).toBe('true');
    await video.evaluate((v: HTMLVideoElement) => {
      v.currentTime = 1.1;
    });
    await expect.poll(() => panel(page).locator('.now-time').textContent()).toBe('1.1 s');
    await app.screenshot('emotion-result');
  });

  test('several people: a chart, a "right now" row and an impression each, in order of appearance', async () => {
    const { page } = app;
    await fileInput(page).setInputFiles(data('video/short_hamilton_clip.mp4'));
    await expect.poll(() => summary(page).textContent(), { timeout: 180_000 }).toMatch(/^\d+ people in short_hamilton_clip\.mp4 · 10\.0 s of video · 51 frames analysed$/);
    const people = Number((await summary(page).textContent())!.split(' ')[0]);
    expect(people).toBeGreaterThanOrEqual(3);
    await expectResult(page, people);
    const result = panel(page).locator('.emotion-result');
    expect(await result.locator('figure.timeline figcaption').allTextContents()).toEqual(Array.from({ length: people }, (_, i) => `Person ${i + 1}: emotions over time`));
    expect(await result.locator('.timeline-svg path.series').count()).toBe(6 * people);
    // someone is out of view at some point: the row says so instead of stale values
    await expect.poll(() => result.locator('.now-person.absent').count()).toBeGreaterThan(0);
    await app.screenshot('emotion-people');
  });

  test('a video without faces says so', async () => {
    const { page } = app;
    await fileInput(page).setInputFiles(data(NO_FACE));
    await expect.poll(() => notice(page).textContent(), { timeout: 120_000 }).toContain('No faces were found in this video');
    expect(await notice(page).getAttribute('class')).toContain('warning');
    expect(await panel(page).locator('.emotion-result').isHidden()).toBe(true);
    await app.screenshot('emotion-no-face');
  });

  test('a file that is not a video, and one that does not decode, are refused with a reason', async () => {
    const { page } = app;
    await fileInput(page).setInputFiles({ name: 'notes <b>1</b>.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect.poll(() => notice(page).textContent()).toBe('“notes <b>1</b>.txt” is not a video. Choose a WebM or MP4 video file.');
    expect(await notice(page).getAttribute('role')).toBe('alert');
    await fileInput(page).setInputFiles({ name: 'broken.webm', mimeType: 'video/webm', buffer: Buffer.from('this is not really a webm file') });
    await expect.poll(() => notice(page).textContent(), { timeout: 60_000 }).toMatch(/^“broken\.webm” could not be read as a video\. Use a WebM .*\(error 5000: unsupported media format/);
  });

  test('a recording from the webcam is analysed: one person', async () => {
    const { page } = app;
    await panel(page).getByRole('button', { name: 'Record with webcam' }).click();
    const recorder = panel(page).locator('.recorder');
    await expect.poll(() => recorder.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    expect(await recorder.getByLabel('Webcam preview').evaluate((v: HTMLVideoElement) => v.videoWidth)).toBe(640);
    // the drop zone steps aside while the camera is open
    expect(await panel(page).getByRole('group', { name: 'Video to analyse' }).isHidden()).toBe(true);
    await recorder.getByRole('button', { name: 'Start recording' }).click();
    expect(await recorder.getAttribute('data-state')).toBe('recording');
    await expect.poll(() => recorder.getByRole('timer').textContent(), { timeout: 10_000 }).toMatch(/^0:0[3-5] \/ 0:15$/);
    await app.screenshot('emotion-recording');
    await recorder.getByRole('button', { name: 'Stop recording' }).click();
    await expect.poll(() => summary(page).textContent(), { timeout: 120_000 }).toMatch(/^1 person in webcam-\d{6}\.webm · [3-5]\.\d s of video · \d+ frames analysed$/);
    expect(await recorder.isHidden()).toBe(true);
    await expectResult(page, 1);
    // a recorded WebM says no duration in its header: playback finds it so the seek bar works
    await expect.poll(() => panel(page).locator('video.playback-video').evaluate((v: HTMLVideoElement) => v.duration)).toBeGreaterThan(2.5);
    expect(await panel(page).locator('video.playback-video').evaluate((v: HTMLVideoElement) => Number.isFinite(v.duration))).toBe(true);
    await app.screenshot('emotion-webcam');
  });

  test('earlier analyses reopen and delete (DELETE /v2/media/{id})', async () => {
    const { page } = app;
    const items = panel(page).locator('.history-item');
    expect(await items.count()).toBe(4);
    const biden = items.filter({ hasText: 'synthetic_panzoom_biden_vp9.webm' });
    await biden.getByRole('button', { name: /^Open/ }).click();
    await expect.poll(() => summary(page).textContent(), { timeout: 30_000 }).toMatch(/^1 person in synthetic_panzoom_biden_vp9\.webm/);
    await expectResult(page, 1);
    const noFace = items.filter({ hasText: 'negative_testsrc2_noface_vp9.webm' });
    expect(await noFace.textContent()).toContain('no faces');
    await noFace.getByRole('button', { name: /^Delete/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => items.count()).toBe(3);
    expect(await notice(page).textContent()).toBe('Deleted the analysis of negative_testsrc2_noface_vp9.webm.');
  });

  test('the developer panel shows each request: POST /v2/media, GET /v2/analytics, DELETE /v2/media', async () => {
    const { page } = app;
    await page.getByRole('tab', { name: 'Developer' }).click();
    const text = (await page.locator('#panel-developer').textContent()) ?? '';
    expect(text).toContain('POST /v2/media');
    expect(text).toMatch(/GET \/v2\/analytics\/[0-9a-f]{32}/);
    expect(text).toMatch(/GET \/v2\/media\/[0-9a-f]{32}/);
    expect(text).toMatch(/DELETE \/v2\/media\/[0-9a-f]{32}/);
    await page.getByRole('tab', { name: 'Emotion video' }).click();
    expect(app.errors).toEqual([]);
  });
});

describe('Emotion video at phone width', () => {
  let phone: App;
  beforeAll(async () => {
    phone = await openApp(browser, { path: '/#emotion', viewport: { width: 390, height: 844 } });
  });
  afterAll(async () => {
    await phone?.close();
  });

  test('the whole result fits 390 px, and a refused camera is explained', async () => {
    const { page } = phone;
    await fileInput(page).setInputFiles(data(BIDEN));
    await expect.poll(() => summary(page).textContent(), { timeout: 120_000 }).toMatch(/^1 person in synthetic_panzoom_biden_vp9\.webm/);
    await expectResult(page, 1);
    // nothing wider than the screen: no sideways scrolling
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const chartWidth = await panel(page).locator('.timeline-svg').first().evaluate((s) => s.getBoundingClientRect().width);
    expect(chartWidth).toBeGreaterThan(250);
    expect(chartWidth).toBeLessThanOrEqual(360);
    await phone.screenshot('emotion-phone');

    // the camera refused (as when the user blocks it)
    await page.evaluate(() => {
      navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
    });
    await panel(page).getByRole('button', { name: 'Record with webcam' }).click();
    await expect.poll(() => notice(page).textContent()).toBe('Camera access was denied. Allow the camera for this page in the browser, or upload a video file instead.');
    expect(await panel(page).locator('.recorder').isHidden()).toBe(true);
    expect(await panel(page).getByRole('group', { name: 'Video to analyse' }).isVisible()).toBe(true);
    expect(phone.errors).toEqual([]);
  });
});
