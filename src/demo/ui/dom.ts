// One tiny element factory for the whole page. Text goes in as text nodes only: nothing
// from a response, a file name or a user's input is ever parsed as HTML.
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  /** text content (instead of children) */
  text?: string;
  dataset?: Record<string, string>;
  /** event listeners, e.g. { click: () => … } */
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
  /** any other attribute (aria-*, for, type, …); false/undefined leaves it out, true sets it empty */
  [attribute: string]: unknown;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = String(value);
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'on') {
      for (const [type, listener] of Object.entries(value as Record<string, EventListener>)) el.addEventListener(type, listener);
    } else el.setAttribute(key, value === true ? '' : String(value));
  }
  el.append(...children.filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false).map((c) => (typeof c === 'number' ? String(c) : c)));
  return el;
}

/** Finds a required element of the static page. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

/** A unique id for label/aria wiring. */
let counter = 0;
export const uid = (prefix: string) => `${prefix}-${++counter}`;

/** A labelled form control: <label for> + the control. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLDivElement {
  control.id ||= uid('field');
  const hintEl = hint ? h('small', { id: `${control.id}-hint`, class: 'hint', text: hint }) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: control.id, text: label }), control, hintEl);
}

export function button(label: string, onClick: (event: MouseEvent) => void, props: Props = {}): HTMLButtonElement {
  return h('button', { type: 'button', ...props, on: { click: onClick } }, label);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
