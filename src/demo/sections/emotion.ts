// Emotion video: a video (picked, dropped or recorded from the webcam) goes to POST /v2/media
// with progress, then GET /v2/analytics/{id} (and GET /v2/media/{id} while a job is still
// processing). The result plays back with each person's box and id in step with the video,
// a timeline chart of the six emotions per person (click to seek), what each person shows
// right now, and the analytics impressions. Earlier analyses are listed, reopened and
// deleted (DELETE /v2/media/{id}). Every request shows in the developer panel.
import type { AnalyticsObject, Engine, MediaObject, MediaStatus } from '../../index.ts';
import { AnalysisHistory, type HistoryEntry } from '../emotion/history.ts';
import { impressionCard, meterRow, personChip } from '../emotion/impressions.ts';
import { Playback, type PlaybackFrame } from '../emotion/playback.ts';
import { WebcamRecorder } from '../emotion/recorder.ts';
import { timelineChart, type TimelineChart, type TimelineSample } from '../emotion/timeline-chart.ts';
import { dominant, EMOTION_STYLE, EMOTIONS, formatSeconds, pct, personColor, type EmotionValues } from '../emotion/emotions.ts';
import type { ApiClient } from '../ui/api-client.ts';
import { errorOf, type ApiError } from '../ui/api-client.ts';
import type { Camera } from '../ui/camera.ts';
import { confirmAction } from '../ui/confirm.ts';
import { button, formatBytes, h, uid } from '../ui/dom.ts';
import { acceptFiles } from '../ui/file-drop.ts';
import { describeError } from '../ui/messages.ts';
import { Notice } from '../ui/notice.ts';
import '../emotion/emotion.css';

/** Seconds POST /v2/media waits for the result before answering 202 (the interface's maximum). */
const POST_TIMEOUT_S = 60;
/** Polling GET /v2/media/{id} after a 202. */
const POLL_EVERY_MS = 1500;
const POLL_LIMIT_MS = 15 * 60_000;
const VIDEO_NAME = /\.(webm|mkv|mp4|m4v|mov)$/i;

type MediaReply = MediaObject | MediaStatus | ApiError;
const isComplete = (body: unknown): body is MediaObject => typeof body === 'object' && body !== null && Array.isArray((body as MediaObject).frames);
const isStatus = (body: unknown): body is MediaStatus => typeof body === 'object' && body !== null && 'status_code' in body && !('frames' in body);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What is wrong with a picked file before anything is sent, if anything. */
function problemWith(file: File): string | undefined {
  if (file.type.startsWith('video/') || (!file.type && VIDEO_NAME.test(file.name))) {
    return file.size === 0 ? `“${file.name}” is empty (0 bytes).` : undefined;
  }
  if (file.type.startsWith('image/')) return `“${file.name}” is a photo. This screen analyses videos; use Detect & analyse for photos.`;
  return `“${file.name}” is not a video. Choose a WebM or MP4 video file.`;
}

/** A failed POST or job as a sentence (5000: the file is not a video Chromium decodes). */
function describeFailure(name: string, error: ApiError): string {
  if (error.code === 5000) return `“${name}” could not be read as a video. Use a WebM (VP8, VP9, AV1) or MP4 (H.264) file. (error 5000: ${error.message})`;
  return `“${name}” could not be analysed: ${describeError(error)}`;
}

/** status_code 3 after a 202: "Error. <reason>." */
function describeStatus(name: string, status: MediaStatus): string {
  const reason = status.status_message.replace(/^Error\.\s*/, '');
  if (/not found/i.test(reason)) return `The analysis of “${name}” is gone (it was deleted, or this browser's storage was cleared).`;
  return `The analysis of “${name}” failed: ${reason}`;
}

interface Analysis {
  id: string;
  file: string;
  media: MediaObject;
  analytics: AnalyticsObject | undefined;
  video: Blob | undefined;
}

/** The people of a media object in order of first appearance. */
function peopleOf(media: MediaObject): string[] {
  const ids: string[] = [];
  for (const f of media.frames) for (const p of f.people) if (!ids.includes(p.person_id)) ids.push(p.person_id);
  return ids;
}

export function mountEmotion(panel: HTMLElement, engine: Engine, api: ApiClient, camera: Camera): void {
  const notice = new Notice();
  let working = false;
  let shown: { id: string; playback?: Playback; charts: TimelineChart[] } | undefined;
  const historyOpening = AnalysisHistory.open(engine.storageName);

  // ------------------------------------------------------------ the source: file or webcam
  const hintId = uid('video-hint');
  // a real button (Enter and Space work natively) opens the hidden input, kept out of the tab order
  const input = h('input', { type: 'file', accept: 'video/*', class: 'visually-hidden', tabindex: '-1', 'aria-label': 'Choose a video file' });
  const chooser = button('choose a video', () => input.click(), { class: 'primary chooser', 'aria-describedby': hintId });
  const recordButton = button('Record with webcam', () => void recorder.open());
  const zone = h(
    'div',
    { class: 'dropzone video-dropzone', role: 'group', 'aria-label': 'Video to analyse' },
    h('p', {}, 'Drop a video here, ', chooser, ' or'),
    recordButton,
    input,
  );
  const hint = h('p', { id: hintId, class: 'hint', text: 'WebM or MP4. Analysed on this device at 5 frames per second: a 10 s clip takes about 10 s. Faces should be at least a tenth of the picture high.' });
  const recorder = new WebcamRecorder({
    camera,
    onRecording: (file) => void analyse(file),
    onProblem: (message) => notice.show('error', message),
    onOpenChange: (open) => {
      zone.hidden = open;
      if (!open && !working) recordButton.focus({ preventScroll: true });
    },
  });

  const setWorking = (on: boolean) => {
    working = on;
    input.disabled = on;
    chooser.disabled = on;
    recordButton.disabled = on;
    zone.classList.toggle('disabled', on);
  };
  const take = (files: readonly File[]) => {
    const file = files[0];
    if (!file) return;
    if (working) {
      notice.show('info', 'A video is being analysed: wait for it to finish, then add the next one.');
      return;
    }
    void analyse(file);
  };
  acceptFiles(zone, input, take);

  // ------------------------------------------------------------ the result
  const summary = h('p', { class: 'summary', role: 'status' });
  const stage = h('div', { class: 'emotion-stage' });
  const nowList = h('ul', { class: 'now-list', 'aria-label': 'Emotions at the current moment of the video' });
  const nowTime = h('span', { class: 'now-time', text: '0.0 s' });
  const nowBox = h('div', { class: 'now card' }, h('h3', {}, 'Right now ', nowTime), nowList);
  const charts = h('div', { class: 'timelines' });
  const impressions = h('ol', { class: 'impressions', 'aria-label': 'Impressions per person' });
  const impressionsNote = h('p', { class: 'hint' });
  const result = h(
    'div',
    { class: 'emotion-result', 'aria-label': 'Analysis result' },
    summary,
    h('div', { class: 'emotion-top' }, stage, nowBox),
    h('h3', { text: 'Emotions over time' }),
    h('p', { class: 'hint', text: 'One chart per person. Click or drag on a chart, or focus it and use the arrow keys, to move the video to that moment.' }),
    charts,
    h('h3', { text: 'Impressions' }),
    impressionsNote,
    impressions,
  );
  result.hidden = true;

  const clearResult = () => {
    shown?.playback?.destroy();
    for (const c of shown?.charts ?? []) c.destroy();
    shown = undefined;
    result.hidden = true;
    delete result.dataset.mediaId;
    stage.replaceChildren();
    nowList.replaceChildren();
    charts.replaceChildren();
    impressions.replaceChildren();
    markCurrent();
  };

  /** Shows a finished analysis; false when there is nothing to show (no faces). */
  const show = (a: Analysis): boolean => {
    clearResult();
    const ids = peopleOf(a.media);
    if (a.media.media_info.type !== 'video') {
      notice.show('warning', `“${a.file}” holds a still image, not a video. Use Detect & analyse for photos.`);
      return false;
    }
    if (ids.length === 0) {
      notice.show('warning', `No faces were found in this video (“${a.file}”, ${formatSeconds(a.media.length)}). Faces need to be at least a tenth of the picture high and turned toward the camera.`);
      return false;
    }
    const colors = new Map(ids.map((id, i) => [id, personColor(i)]));
    const frames: PlaybackFrame[] = a.media.frames.map((f) => ({ timeS: f.time / 1000, people: f.people }));
    const intervalS = frames.length > 1 ? frames[1]!.timeS - frames[0]!.timeS : 0.2;
    const durationS = a.media.length || (frames.at(-1)?.timeS ?? 0) + intervalS;

    summary.textContent = `${ids.length} ${ids.length === 1 ? 'person' : 'people'} in ${a.file} · ${formatSeconds(durationS)} of video · ${frames.length} frames analysed`;

    // playback with the boxes
    let playback: Playback | undefined;
    if (a.video) {
      playback = new Playback(a.video, { name: a.file, frames, people: ids.map((id) => ({ id, color: colors.get(id)! })), durationS });
      stage.append(playback.element);
    } else {
      stage.append(h('p', { class: 'no-video', text: `The video itself is not kept for this analysis (it is larger than this page keeps), so it cannot be played back. The charts and impressions below are complete.` }));
    }

    // right now: each person's values at the frame shown
    const rows = ids.map((id) => {
      const mood = h('span', { class: 'now-mood' });
      const attention = h('span', { class: 'now-attention' });
      const bars = h('dl', { class: 'facts now-bars' });
      const li = h('li', { class: 'now-person', dataset: { person: id } }, h('div', { class: 'now-head' }, personChip(id, colors.get(id)!), mood), attention, bars);
      return { id, li, mood, attention, bars };
    });
    nowList.replaceChildren(...rows.map((r) => r.li));
    const showNow = (timeS: number, index: number) => {
      nowTime.textContent = formatSeconds(Math.max(0, timeS));
      const frame = a.media.frames[index];
      for (const r of rows) {
        const p = frame?.people.find((q) => q.person_id === r.id);
        r.li.classList.toggle('absent', !p);
        if (!p) {
          r.mood.textContent = 'not in view';
          r.attention.textContent = '';
          r.bars.replaceChildren();
          continue;
        }
        const d = dominant(p.emotions);
        r.mood.textContent = `${d.name} ${pct(d.value)}`;
        r.attention.textContent = `Attention ${pct(p.tracking.attention)} · ${p.tracking.glances} glance${p.tracking.glances === 1 ? '' : 's'} · in view ${formatSeconds(p.tracking.dwell)}`;
        r.bars.replaceChildren(...EMOTIONS.flatMap((k) => meterRow(EMOTION_STYLE[k].label, p.emotions[k], EMOTION_STYLE[k].color)));
      }
    };

    // the charts
    const timelines = ids.map((id) => {
      const samples: TimelineSample[] = frames.map((f) => ({ timeS: f.timeS, values: f.people.find((p) => p.person_id === id)?.emotions as EmotionValues | undefined }));
      return timelineChart({ label: `Person ${id}`, samples, durationS, intervalS, onSeek: (t) => (playback ? playback.seek(t) : moveTo(t)) });
    });
    charts.replaceChildren(...timelines.map((t) => t.element));
    const moveTo = (t: number) => {
      const i = frames.findLastIndex((f) => f.timeS <= t + 1e-3);
      showNow(t, i);
      for (const c of timelines) c.setTime(t);
    };
    playback?.onTime((t, i) => {
      showNow(t, i);
      for (const c of timelines) c.setTime(t);
    });
    showNow(0, frames.length ? 0 : -1);

    // the impressions
    if (a.analytics) {
      impressionsNote.textContent = `From GET /v2/analytics/${a.id}: one impression per person, averaged over their sightings.`;
      impressions.replaceChildren(...a.analytics.impressions.map((imp) => impressionCard(imp, colors.get(imp.id) ?? personColor(0))));
    } else {
      impressionsNote.textContent = 'The analytics could not be read for this video.';
    }

    shown = { id: a.id, playback, charts: timelines };
    result.dataset.mediaId = a.id;
    result.hidden = false;
    markCurrent();
    return true;
  };

  // ------------------------------------------------------------ talking to the engine
  /** GET /v2/media/{id} until it is no longer processing. */
  const pollMedia = async (id: string, report: (fraction: number | undefined, stage?: string) => void): Promise<MediaReply> => {
    const until = performance.now() + POLL_LIMIT_MS;
    for (;;) {
      const { body } = await api.request<MediaReply>('GET', `/v2/media/${encodeURIComponent(id)}`);
      if (!isStatus(body) || Number(body.status_code) !== 2) return body;
      if (performance.now() > until) return body;
      report(undefined, 'Still analysing (the engine works in the background; checking again every few seconds)');
      await sleep(POLL_EVERY_MS);
    }
  };

  /** The finished media object and its analytics, with progress; a sentence when it failed. */
  const fetchAnalysis = async (
    id: string,
    name: string,
    first: MediaReply | undefined,
    report: (fraction: number | undefined, stage?: string) => void,
  ): Promise<{ media: MediaObject; analytics?: AnalyticsObject } | { problem: string; kind: 'warning' | 'error'; gone?: boolean }> => {
    const media = first && !(isStatus(first) && Number(first.status_code) === 2) ? first : await pollMedia(id, report);
    const error = errorOf(media);
    if (error) return { problem: describeFailure(name, error), kind: 'error' };
    if (!isComplete(media)) {
      const status = media as MediaStatus;
      if (Number(status.status_code) === 2) return { problem: `“${name}” is still being analysed. It will appear under Earlier analyses; open it from there later.`, kind: 'warning' };
      return { problem: describeStatus(name, status), kind: 'error', gone: /not found/i.test(status.status_message) };
    }
    report(1, 'Reading the analytics');
    const analytics = await api.request<AnalyticsObject | MediaStatus | ApiError>('GET', `/v2/analytics/${encodeURIComponent(id)}`);
    return { media, analytics: 'impressions' in analytics.body ? analytics.body : undefined };
  };

  const analyse = async (file: File) => {
    const refused = problemWith(file);
    if (refused) {
      notice.show('error', refused);
      return;
    }
    setWorking(true);
    clearResult();
    notice.clear();
    const history = await historyOpening;
    try {
      const outcome = await notice.busy(`Analysing ${file.name} (${formatBytes(file.size)})`, async (report) => {
        report(undefined, `Opening ${file.name} (${formatBytes(file.size)})`);
        const request = { source: file, timeout: POST_TIMEOUT_S };
        const posted = (await api.typed('POST /v2/media', request, () =>
          engine.mediaPost(request, {
            onProgress: (p) =>
              report(p.fraction, p.fraction === undefined ? 'Analysing the video' : `Analysing the video: ${Math.round(p.fraction * 100)}% of the frames`),
          }),
        )) as MediaReply;
        const error = errorOf(posted);
        if (error) return { problem: describeFailure(file.name, error), kind: 'error' as const };
        const id = (posted as MediaObject | MediaStatus).id;
        await history.put({ id, file: file.name, at: Date.now(), length: 0, video: file }).catch(() => {});
        const done = await fetchAnalysis(id, file.name, posted, report);
        return 'problem' in done ? done : { id, ...done };
      });
      if ('problem' in outcome) {
        notice.show(outcome.kind, outcome.problem);
      } else {
        const people = peopleOf(outcome.media).length;
        await history.put({ id: outcome.id, file: file.name, at: Date.now(), length: outcome.media.length, people, video: file }).catch(() => {});
        if (show({ id: outcome.id, file: file.name, media: outcome.media, analytics: outcome.analytics, video: file })) {
          notice.show('success', `Analysed ${file.name}: ${people} ${people === 1 ? 'person' : 'people'}. Play the video to follow the emotions.`);
        }
      }
    } catch (e) {
      notice.show('error', `Something went wrong while analysing “${file.name}”: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setWorking(false);
      await refreshHistory();
    }
  };

  // ------------------------------------------------------------ earlier analyses
  const historyList = h('ol', { class: 'history-list', 'aria-label': 'Earlier analyses' });
  const historyEmpty = h('p', { class: 'hint', text: 'Videos you analyse are listed here, kept in this browser only.' });
  const historyBox = h('section', { class: 'history', 'aria-labelledby': 'emotion-history-title' }, h('h3', { id: 'emotion-history-title', text: 'Earlier analyses' }), historyEmpty, historyList);

  function markCurrent(): void {
    for (const li of historyList.querySelectorAll<HTMLElement>('li')) {
      if (li.dataset.mediaId === shown?.id) li.setAttribute('aria-current', 'true');
      else li.removeAttribute('aria-current');
    }
  }

  const open = async (entry: HistoryEntry) => {
    if (working) return;
    setWorking(true);
    notice.clear();
    try {
      const outcome = await notice.busy(`Opening ${entry.file}`, (report) => fetchAnalysis(entry.id, entry.file, undefined, report));
      const history = await historyOpening;
      if ('problem' in outcome) {
        clearResult();
        notice.show(outcome.kind, outcome.problem);
        if (outcome.gone) await history.remove(entry.id).catch(() => {});
        return;
      }
      const people = peopleOf(outcome.media).length;
      if (entry.people === undefined) await history.put({ ...entry, length: outcome.media.length, people }).catch(() => {});
      if (show({ id: entry.id, file: entry.file, media: outcome.media, analytics: outcome.analytics, video: entry.video })) {
        result.scrollIntoView({ block: 'start', behavior: 'smooth' });
        (shown?.playback?.video ?? result).focus?.({ preventScroll: true });
      }
    } catch (e) {
      notice.show('error', `Could not open “${entry.file}”: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setWorking(false);
      await refreshHistory();
    }
  };

  const remove = async (entry: HistoryEntry) => {
    if (!(await confirmAction(`Delete the analysis of “${entry.file}”? Its results and stored video are removed from this browser.`, 'Delete'))) return;
    const { body } = await api.request<MediaStatus | ApiError>('DELETE', `/v2/media/${encodeURIComponent(entry.id)}`);
    const error = errorOf(body);
    if (error) {
      notice.show('error', `“${entry.file}” could not be deleted: ${error.message} (error ${error.code})`);
      return;
    }
    await (await historyOpening).remove(entry.id);
    if (shown?.id === entry.id) clearResult();
    notice.show('success', `Deleted the analysis of ${entry.file}.`);
    await refreshHistory();
    historyList.querySelector<HTMLButtonElement>('button')?.focus();
  };

  async function refreshHistory(): Promise<void> {
    const entries = await (await historyOpening).list();
    historyEmpty.hidden = entries.length > 0;
    historyList.replaceChildren(
      ...entries.map((entry) => {
        const when = new Date(entry.at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
        const facts =
          entry.people === undefined
            ? `${when} · not finished when last seen`
            : `${when} · ${formatSeconds(entry.length)} · ${entry.people === 0 ? 'no faces' : `${entry.people} ${entry.people === 1 ? 'person' : 'people'}`}${entry.video ? '' : ' · video not kept'}`;
        return h(
          'li',
          { class: 'history-item', dataset: { mediaId: entry.id } },
          h('div', { class: 'history-text' }, h('strong', { class: 'history-name', text: entry.file }), h('span', { class: 'hint', text: facts })),
          h(
            'div',
            { class: 'row' },
            button('Open', () => void open(entry), { 'aria-label': `Open the analysis of ${entry.file}` }),
            button('Delete', () => void remove(entry), { class: 'danger', 'aria-label': `Delete the analysis of ${entry.file}` }),
          ),
        );
      }),
    );
    markCurrent();
  }
  void refreshHistory();

  panel.append(
    h('h2', { text: 'Emotion video' }),
    h('p', { class: 'lead', text: 'Upload a short video or record one with the webcam: see each person’s emotions, attention and demographics over time, with the faces marked as it plays.' }),
    h('div', { class: 'video-source' }, zone, recorder.element, hint),
    notice.element,
    result,
    historyBox,
  );
}
