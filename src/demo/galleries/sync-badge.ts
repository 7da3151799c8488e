// The Galleries screen's sync line: a "shared" badge and the last-synced time while the engine
// syncs with a team's service (docs/sync.md), and a progress bar while it pulls (a new
// device's bootstrap); nothing at all without sync. The settings come from the "Team sync"
// form (sync-form.ts, kept by sync-settings.ts).
import type { Engine } from '../../engine/engine.ts';
import type { SyncStatus } from '../../sync/index.ts';

/** HH:MM:SS by hand: toLocaleTimeString's first call loads locale data (~150 ms, docs/demo.md) */
function clock(at: number): string {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function describe(s: SyncStatus): string {
  const when = s.lastSyncedAt ? `last synced ${clock(s.lastSyncedAt)}` : 'not synced yet';
  const what = s.galleries.length ? ` · ${s.galleries.map((g) => `${g.gallery}${g.encrypted ? ' (encrypted)' : ''}`).join(', ')}` : '';
  const pending = s.pending ? ` · ${s.pending} change${s.pending === 1 ? '' : 's'} waiting` : '';
  const problem = s.error ? ` · ${s.state === 'offline' ? 'offline, retrying' : s.error.message}` : '';
  return `${when}${what}${pulling(s)}${pending}${problem}`;
}

/** " · pulling 41000 of 100000 changes" during a pull that has more than a page to go */
function pulling({ progress: p }: SyncStatus): string {
  if (p.phase !== 'pulling' || p.total === null || p.total <= p.pulled) return '';
  return ` · pulling ${p.pulled} of ${p.total} changes`; // plain numbers: toLocaleString loads locale data
}

export function mountSyncBadge(panel: HTMLElement, engine: Engine): void {
  if (!engine.syncStatus().enabled) return;
  const line = document.createElement('p');
  line.className = 'sync-line';
  line.dataset.testid = 'sync-status';
  const badge = document.createElement('span');
  badge.className = 'badge sync-badge';
  badge.textContent = 'shared';
  // inline: the stylesheet belongs to the layout; this is the one element sync adds
  badge.style.cssText = 'background:#1f6feb;color:#fff;border-radius:0.6em;padding:0.1em 0.6em;font-size:0.85em;font-weight:600';
  const text = document.createElement('span');
  const bar = document.createElement('progress');
  bar.dataset.testid = 'sync-progress';
  bar.style.cssText = 'margin-left:0.5em;vertical-align:middle';
  line.append(badge, ' ', text, bar);
  panel.prepend(line);
  const render = (s: SyncStatus) => {
    line.dataset.syncState = s.state;
    text.textContent = describe(s);
    bar.hidden = pulling(s) === '';
    bar.max = s.progress.total ?? 0;
    bar.value = s.progress.pulled;
  };
  render(engine.syncStatus());
  engine.onSyncStatus(render);
  // "12 s ago" style freshness is not needed: the time itself is shown; re-render on focus for the offline case
  addEventListener('focus', () => render(engine.syncStatus()));
}
