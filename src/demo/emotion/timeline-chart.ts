// One person's six emotions over the video as a plain SVG line chart: axes with labels, a
// legend, an accessible title and description, a data table for screen readers, and a
// playhead that follows the video. Clicking (or dragging) the plot seeks; so do the arrow
// keys when it has focus. No chart library: see docs/demo.md. Text goes in via textContent.
import { h, uid } from '../ui/dom.ts';
import { EMOTION_STYLE, EMOTIONS, formatSeconds, pct, type EmotionValues } from './emotions.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
const HEIGHT = 210;
const MARGIN = { top: 14, right: 14, bottom: 38, left: 46 };
const X_STEPS = [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600];

type Attrs = Record<string, string | number>;
function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** One sampled frame of the video: the person's emotions there, or undefined when not in view. */
export interface TimelineSample {
  timeS: number;
  values?: EmotionValues;
}

export interface TimelineOptions {
  /** "Person 1" */
  label: string;
  samples: readonly TimelineSample[];
  /** the video's length, seconds */
  durationS: number;
  /** seconds between samples (one sample stands for this much video) */
  intervalS: number;
  /** the user clicked, dragged or used the keys: move the video there */
  onSeek?(timeS: number): void;
}

export interface TimelineChart {
  element: HTMLElement;
  /** moves the playhead (called as the video plays) */
  setTime(timeS: number): void;
  destroy(): void;
}

/** Mean of each emotion over the samples where the person is in view. */
export function averages(samples: readonly TimelineSample[]): EmotionValues | undefined {
  const seen = samples.filter((s) => s.values);
  if (seen.length === 0) return undefined;
  return Object.fromEntries(EMOTIONS.map((k) => [k, seen.reduce((sum, s) => sum + s.values![k], 0) / seen.length])) as EmotionValues;
}

/** The index of the last sample at or before `timeS` (-1 before the first). */
export function sampleIndexAt(samples: readonly { timeS: number }[], timeS: number): number {
  let lo = 0;
  let hi = samples.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid]!.timeS <= timeS + 1e-3) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The path of one emotion: a line through consecutive sightings, broken where the person is out of view. */
function linePath(samples: readonly TimelineSample[], key: (typeof EMOTIONS)[number], x: (t: number) => number, y: (v: number) => number): string {
  const parts: string[] = [];
  let open = false;
  for (const s of samples) {
    if (!s.values) {
      open = false;
      continue;
    }
    const px = x(s.timeS).toFixed(1);
    const py = y(s.values[key]).toFixed(1);
    // a lone sighting is drawn as a dot (a zero-length segment with round caps)
    parts.push(open ? `L${px} ${py}` : `M${px} ${py}l0.01 0`);
    open = true;
  }
  return parts.join('');
}

/** The sightings with no sighting on either side, as dots big enough to see. */
function lonePath(samples: readonly TimelineSample[], key: (typeof EMOTIONS)[number], x: (t: number) => number, y: (v: number) => number): string {
  return samples
    .map((s, i) => (s.values && !samples[i - 1]?.values && !samples[i + 1]?.values ? `M${x(s.timeS).toFixed(1)} ${y(s.values[key]).toFixed(1)}l0.01 0` : ''))
    .join('');
}

export function timelineChart(options: TimelineOptions): TimelineChart {
  const { samples, intervalS, label } = options;
  const duration = Math.max(options.durationS, samples.at(-1)?.timeS ?? 0, intervalS, 0.001);
  const titleId = uid('chart-title');
  const descId = uid('chart-desc');
  const avg = averages(samples);
  const seen = samples.filter((s) => s.values).length;
  const strongest = avg ? EMOTIONS.reduce((a, b) => (avg[b] > avg[a] ? b : a)) : undefined;

  const title = svg('title', { id: titleId });
  title.textContent = `${label}: the six emotions over ${formatSeconds(duration)} of video`;
  const desc = svg('desc', { id: descId });
  desc.textContent =
    `Line chart, time in seconds across, emotion from 0 to 100 percent up, one line per emotion: ${EMOTIONS.map((k) => EMOTION_STYLE[k].label.toLowerCase()).join(', ')}. ` +
    `In view in ${seen} of ${samples.length} sampled frames.` +
    (avg && strongest ? ` Strongest on average: ${EMOTION_STYLE[strongest].label.toLowerCase()} at ${pct(avg[strongest])}.` : '');
  const root = svg('svg', { class: 'timeline-svg', role: 'img', 'aria-labelledby': titleId, 'aria-describedby': descId, height: HEIGHT });
  const axes = svg('g', { class: 'axes' });
  const lines = svg('g', { class: 'lines' });
  const playhead = svg('g', { class: 'playhead', 'aria-hidden': 'true' });
  const playLine = svg('line', {});
  const playLabel = svg('text', { 'text-anchor': 'middle' });
  const dots = EMOTIONS.map((k) => svg('circle', { r: 3.5, fill: EMOTION_STYLE[k].color, stroke: '#fff', 'stroke-width': 1.5 }));
  playhead.append(playLine, playLabel, ...dots);
  root.append(title, desc, axes, lines, playhead);

  let width = 600;
  let current = 0;
  const plotW = () => width - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (t: number) => MARGIN.left + (Math.min(Math.max(t, 0), duration) / duration) * plotW();
  const y = (v: number) => MARGIN.top + (1 - v / 100) * plotH;

  const drawAxes = () => {
    axes.replaceChildren();
    for (const v of [0, 25, 50, 75, 100]) {
      axes.append(svg('line', { class: v === 0 ? 'axis' : 'grid', x1: MARGIN.left, x2: width - MARGIN.right, y1: y(v), y2: y(v) }));
      const t = svg('text', { x: MARGIN.left - 6, y: y(v) + 4, 'text-anchor': 'end' });
      t.textContent = `${v}%`;
      axes.append(t);
    }
    const step = X_STEPS.find((s) => duration / s <= Math.max(2, plotW() / 64)) ?? X_STEPS.at(-1)!;
    for (let t = 0; t <= duration + 1e-6; t += step) {
      axes.append(svg('line', { class: 'tick', x1: x(t), x2: x(t), y1: y(0), y2: y(0) + 5 }));
      const text = svg('text', { x: x(t), y: y(0) + 18, 'text-anchor': 'middle' });
      text.textContent = step < 1 ? t.toFixed(1) : String(Math.round(t));
      axes.append(text);
    }
    axes.append(svg('line', { class: 'axis', x1: MARGIN.left, x2: MARGIN.left, y1: y(0), y2: y(100) }));
    const xLabel = svg('text', { class: 'axis-label', x: MARGIN.left + plotW() / 2, y: HEIGHT - 4, 'text-anchor': 'middle' });
    xLabel.textContent = 'Time (seconds)';
    const yLabel = svg('text', { class: 'axis-label', transform: `translate(12 ${MARGIN.top + plotH / 2}) rotate(-90)`, 'text-anchor': 'middle' });
    yLabel.textContent = 'Emotion (%)';
    axes.append(xLabel, yLabel);
  };

  const drawLines = () => {
    lines.replaceChildren(
      ...EMOTIONS.map((k) =>
        svg('path', {
          class: 'series',
          'data-emotion': k,
          d: linePath(samples, k, x, y),
          stroke: EMOTION_STYLE[k].color,
          'stroke-dasharray': EMOTION_STYLE[k].dash || 'none',
        }),
      ),
      ...EMOTIONS.map((k) => svg('path', { class: 'lone', d: lonePath(samples, k, x, y), stroke: EMOTION_STYLE[k].color })),
    );
  };

  const drawPlayhead = () => {
    const px = x(current);
    for (const [k, v] of Object.entries({ x1: px, x2: px, y1: MARGIN.top - 4, y2: y(0) })) playLine.setAttribute(k, String(v));
    const i = sampleIndexAt(samples, current);
    const values = i >= 0 ? samples[i]!.values : undefined;
    EMOTIONS.forEach((k, j) => {
      const dot = dots[j]!;
      dot.style.display = values ? '' : 'none';
      if (values) {
        dot.setAttribute('cx', String(x(samples[i]!.timeS)));
        dot.setAttribute('cy', String(y(values[k])));
      }
    });
    playLabel.textContent = formatSeconds(current);
    playLabel.setAttribute('x', String(Math.min(Math.max(px, MARGIN.left + 18), width - MARGIN.right - 18)));
    playLabel.setAttribute('y', String(MARGIN.top - 4));
  };

  const render = () => {
    root.setAttribute('width', String(width));
    root.setAttribute('viewBox', `0 0 ${width} ${HEIGHT}`);
    drawAxes();
    drawLines();
    drawPlayhead();
  };

  // the plot: pointer and keyboard seeking
  const plot = h('div', {
    class: 'timeline-plot',
    tabindex: '0',
    role: 'group',
    'aria-label': `${label}, emotions over time. Click the chart, or use the left and right arrow keys, to move the video there.`,
    'aria-keyshortcuts': 'ArrowLeft ArrowRight Home End',
  });
  plot.append(root);
  const timeAtPointer = (e: PointerEvent) => {
    const r = root.getBoundingClientRect();
    const fx = ((e.clientX - r.left) / r.width) * width;
    return Math.min(Math.max(((fx - MARGIN.left) / plotW()) * duration, 0), duration);
  };
  let dragging = false;
  const seek = (t: number) => {
    current = t;
    drawPlayhead();
    options.onSeek?.(t);
  };
  root.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    dragging = true;
    root.setPointerCapture(e.pointerId);
    seek(timeAtPointer(e));
  });
  root.addEventListener('pointermove', (e) => {
    if (dragging) seek(timeAtPointer(e));
  });
  const endDrag = () => (dragging = false);
  root.addEventListener('pointerup', endDrag);
  root.addEventListener('pointercancel', endDrag);
  plot.addEventListener('keydown', (e) => {
    // steps land on sampled frames, so the readout and the video show the same frame
    const perStep = e.shiftKey ? Math.max(1, Math.round(1 / intervalS)) : 1;
    const last = Math.max(0, Math.floor(duration / intervalS - 1e-6));
    const shown = Math.floor(current / intervalS + 1e-6);
    const onSample = Math.abs(current - shown * intervalS) < 1e-3;
    let index: number | undefined;
    if (e.key === 'ArrowLeft') index = (onSample ? shown : shown + 1) - perStep;
    else if (e.key === 'ArrowRight') index = shown + perStep;
    else if (e.key === 'Home') index = 0;
    else if (e.key === 'End') index = last;
    if (index === undefined) return;
    e.preventDefault();
    seek(Math.min(Math.max(index, 0), last) * intervalS);
  });

  const legend = h(
    'ul',
    { class: 'legend', 'aria-label': `Legend: ${label}'s average of each emotion` },
    ...EMOTIONS.map((k) => {
      const swatch = svg('svg', { width: 26, height: 10, 'aria-hidden': 'true' }, svg('line', { x1: 1, x2: 25, y1: 5, y2: 5, stroke: EMOTION_STYLE[k].color, 'stroke-width': 3, 'stroke-dasharray': EMOTION_STYLE[k].dash || 'none' }));
      return h('li', { dataset: { emotion: k } }, swatch, h('span', { text: EMOTION_STYLE[k].label }), h('span', { class: 'legend-value', text: avg ? `avg ${pct(avg[k])}` : '' }));
    }),
  );

  const table = h(
    'table',
    { class: 'timeline-table' },
    h('caption', { text: `${label}: emotions (%) at each sampled frame where the person is in view` }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Time (s)' }), ...EMOTIONS.map((k) => h('th', { scope: 'col', text: EMOTION_STYLE[k].label })))),
    h(
      'tbody',
      {},
      ...samples
        .filter((s) => s.values)
        .map((s) => h('tr', {}, h('th', { scope: 'row', text: s.timeS.toFixed(1) }), ...EMOTIONS.map((k) => h('td', { class: 'num', text: s.values![k].toFixed(1) })))),
    ),
  );

  const element = h(
    'figure',
    { class: 'timeline' },
    h('figcaption', { text: `${label}: emotions over time` }),
    plot,
    legend,
    h('details', { class: 'timeline-data' }, h('summary', { text: 'Show the values as a table' }), h('div', { class: 'table-scroll' }, table)),
  );

  const resize = new ResizeObserver(() => {
    const w = Math.round(plot.clientWidth);
    if (w > 0 && w !== width) {
      width = Math.max(260, w);
      render();
    }
  });
  resize.observe(plot);
  render();

  return {
    element,
    setTime(timeS: number) {
      if (dragging || Math.abs(timeS - current) < 1e-4) return;
      current = Math.min(Math.max(timeS, 0), duration);
      drawPlayhead();
    },
    destroy() {
      resize.disconnect();
    },
  };
}
