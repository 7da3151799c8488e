// The developer panel: the backend and credentials in use, model load and per-stage
// timings, and every request the page made with its exact JSON response (newest first).
import type { Engine, WarmUpReport } from '../../index.ts';
import type { ApiClient, Exchange } from '../ui/api-client.ts';
import { formatMs, h } from '../ui/dom.ts';

const MAX_EXCHANGES = 40;

function definitionList(rows: [string, string][]): HTMLDListElement {
  return h('dl', { class: 'facts' }, ...rows.flatMap(([term, value]) => [h('dt', { text: term }), h('dd', { text: value })]));
}

/**
 * hh:mm:ss, by hand: the page's first toLocaleTimeString() loads the browser's locale data,
 * a ~150 ms task on the main thread during start-up (Lighthouse's total blocking time)
 */
const clock = (d: Date) => [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');

function exchangeView(x: Exchange): HTMLDetailsElement {
  const status = x.status === undefined ? '' : ` → ${x.status}`;
  return h(
    'details',
    { class: 'exchange' },
    h('summary', {}, h('code', { text: x.title }), ` ${status} · ${formatMs(x.ms)} · ${clock(x.at)}`),
    h('h4', { text: 'Request' }),
    h('pre', { text: JSON.stringify(x.request, null, 2) }),
    h('h4', { text: 'Response' }),
    h('pre', { text: JSON.stringify(x.response, null, 2) }),
  );
}

/** `warming`: the start-up warm-up (engine.warmUp()); its time shows once it is done. */
export function mountDeveloper(panel: HTMLElement, engine: Engine, api: ApiClient, warming: Promise<WarmUpReport>): void {
  const b = engine.backend;
  const backend = b.backend === 'wasm' ? `WASM, ${b.threads} thread${b.threads === 1 ? '' : 's'}` : `WebGPU${b.webgpuAdapter ? ` (${b.webgpuAdapter.vendor})` : ''}`;
  const runtime = definitionList([
    ['Backend', backend],
    ['Cross-origin isolated', b.crossOriginIsolated ? 'yes (threads available)' : 'no (single thread)'],
    ['Engine start-up', formatMs(engine.diagnostics.startupMs)],
    ['app_id', api.credentials.appId],
    ['app_key', api.credentials.appKey],
    ['Base URL (answered in-page)', api.baseUrl],
    ['IndexedDB database', engine.storageName],
    ...(b.note ? ([['Note', b.note]] as [string, string][]) : []),
  ]);
  warming.then(
    (report) => {
      runtime.append(h('dt', { text: 'Models warmed up (load + first run)' }), h('dd', { text: `${formatMs(report.ms)} for ${report.models.length} models` }));
      void refreshModels();
    },
    () => undefined, // the header says why; models then load on first use
  );
  const models = h('tbody');
  const stages = h('tbody');
  const log = h('div', { class: 'exchanges', 'aria-live': 'off' });
  const empty = h('p', { class: 'hint', text: 'Nothing yet: every action on the other screens appears here with its request and response.' });

  const refreshModels = async () => {
    const loads = await engine.diagnostics.modelLoads();
    models.replaceChildren(...loads.map((m) => h('tr', {}, h('td', {}, h('code', { text: m.id })), h('td', { class: 'num', text: formatMs(m.loadMs) }))));
  };
  engine.diagnostics.onTimings(({ kind, timings, faces }) => {
    stages.replaceChildren(
      h('tr', {}, h('td', { colspan: '2', class: 'hint', text: `last ${kind} analysis, ${faces} face${faces === 1 ? '' : 's'}` })),
      ...Object.entries(timings).map(([stage, ms]) => h('tr', {}, h('td', { text: stage }), h('td', { class: 'num', text: formatMs(ms) }))),
    );
    void refreshModels();
  });
  api.onExchange((x) => {
    empty.remove();
    log.prepend(exchangeView(x));
    while (log.childElementCount > MAX_EXCHANGES) log.lastElementChild!.remove();
  });

  panel.append(
    h('h2', { text: 'Developer panel' }),
    h('p', {}, 'Every action on this page is a Kairos API request answered inside the page. Call the same URLs with ', h('code', { text: 'fetch' }), ' from your own code after installing the shim (see the README).'),
    h('div', { class: 'dev-grid' },
      h('section', { class: 'card', 'aria-labelledby': 'dev-runtime' }, h('h3', { id: 'dev-runtime', text: 'Runtime' }), runtime),
      h('section', { class: 'card', 'aria-labelledby': 'dev-models' }, h('h3', { id: 'dev-models', text: 'Models loaded' }), h('table', {}, h('thead', {}, h('tr', {}, h('th', { text: 'model' }), h('th', { text: 'load' }))), models)),
      h('section', { class: 'card', 'aria-labelledby': 'dev-stages' }, h('h3', { id: 'dev-stages', text: 'Per-stage timings' }), h('table', {}, h('thead', {}, h('tr', {}, h('th', { text: 'stage' }), h('th', { text: 'time' }))), stages)),
    ),
    h('h3', { text: 'Requests and responses' }),
    empty,
    log,
  );
  void refreshModels();
}
