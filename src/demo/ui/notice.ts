// Messages and progress the user can see (and screen readers hear): one notice area per
// section, errors in role=alert, long work with an elapsed-time progress line.
import { formatMs, h } from './dom.ts';

export type NoticeKind = 'info' | 'success' | 'warning' | 'error';

export class Notice {
  readonly element: HTMLDivElement;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor() {
    this.element = h('div', { class: 'notice', 'aria-live': 'polite' });
    this.element.hidden = true;
  }

  show(kind: NoticeKind, text: string): void {
    this.stopTimer();
    this.element.hidden = false;
    this.element.className = `notice ${kind}`;
    this.element.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    this.element.replaceChildren(text);
  }

  clear(): void {
    this.stopTimer();
    this.element.hidden = true;
    this.element.replaceChildren();
  }

  /**
   * Runs `work` showing "<label>… 1.3 s" with a progress bar (determinate when `work` reports
   * fractions); the section is marked busy meanwhile. Clears itself when done.
   */
  async busy<T>(label: string, work: (report: (fraction: number | undefined, stage?: string) => void) => Promise<T>): Promise<T> {
    this.stopTimer();
    const started = performance.now();
    const bar = h('progress', { 'aria-label': label });
    const text = h('span', { text: `${label}…` });
    this.element.hidden = false;
    this.element.className = 'notice progress';
    this.element.setAttribute('role', 'status');
    this.element.replaceChildren(bar, text);
    let stageText = label;
    const render = () => (text.textContent = `${stageText}… ${formatMs(performance.now() - started)}`);
    this.timer = setInterval(render, 250);
    const report = (fraction: number | undefined, stage?: string) => {
      if (fraction === undefined) bar.removeAttribute('value');
      else bar.value = fraction;
      if (stage) stageText = stage;
      render();
    };
    const host = this.element.closest('section');
    host?.setAttribute('aria-busy', 'true');
    try {
      return await work(report);
    } finally {
      host?.removeAttribute('aria-busy');
      this.clear();
    }
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
