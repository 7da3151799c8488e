// The Galleries screen's "Team sync" card: a form for the team's sync service (its URL, the
// service account's app id and key, the optional team passphrase), or — while syncing — what
// it syncs with and a way to stop. The key and passphrase go to the vault (sync-settings.ts),
// never to localStorage or a URL; the engine takes sync settings when it starts, so saving
// restarts the page.
import { button, field, h } from '../ui/dom.ts';
import { Notice } from '../ui/notice.ts';
import { DemoSyncSettingsSchema, forgetSyncSettings, storeSyncSettings, type DemoSyncSettings } from './sync-settings.ts';

export interface SyncFormState {
  /** the settings this page runs with, if any */
  active?: DemoSyncSettings;
  remembered?: boolean;
  /** non-secret values from the URL */
  prefill?: { url?: string; appId?: string };
  /** after saving or forgetting: restart the page (a test passes its own) */
  restart?: () => void;
}

export function syncForm(state: SyncFormState): HTMLElement {
  const restart = state.restart ?? (() => location.reload());
  const notice = new Notice();
  const card = h('section', { class: 'card', 'aria-labelledby': 'sync-heading', dataset: { testid: 'sync-settings' } }, h('h3', { id: 'sync-heading', text: 'Team sync' }));
  if (state.active) {
    const forget = button(state.remembered ? 'Stop syncing and forget the key' : 'Stop syncing', () => {
      void forgetSyncSettings().then(restart, (e: unknown) => notice.show('error', String(e)));
    });
    card.append(
      h('p', { text: `Galleries are shared through ${state.active.url} as ${state.active.appId}${state.active.passphrase ? ', end-to-end encrypted' : ''}. ${state.remembered ? 'Remembered on this device (encrypted).' : 'For this visit only.'}` }),
      forget,
      notice.element,
    );
    return card;
  }
  const url = h('input', { name: 'sync_url', type: 'url', required: true, placeholder: 'https://sync.example.com/', value: state.prefill?.url });
  const appId = h('input', { name: 'sync_app_id', required: true, autocomplete: 'username', value: state.prefill?.appId });
  const appKey = h('input', { name: 'sync_app_key', type: 'password', required: true, autocomplete: 'off' });
  const passphrase = h('input', { name: 'sync_passphrase', type: 'password', autocomplete: 'off' });
  const remember = h('input', { name: 'sync_remember', type: 'checkbox' });
  const form = h(
    'form',
    {},
    h('p', { class: 'hint', text: 'Share this browser’s galleries with a team through a sync service (docs/sync.md). The key and passphrase stay in this page’s memory; “remember” keeps them encrypted under a key this browser will not export.' }),
    h('div', { class: 'row fields' }, field('Service URL', url), field('App id', appId)),
    h('div', { class: 'row fields' }, field('App key', appKey), field('Team passphrase (optional)', passphrase, 'end-to-end encryption')),
    h('label', {}, remember, ' Remember on this device'),
    h('button', { type: 'submit', text: 'Connect' }),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const parsed = DemoSyncSettingsSchema.safeParse({ url: url.value.trim(), appId: appId.value.trim(), appKey: appKey.value, ...(passphrase.value ? { passphrase: passphrase.value } : {}) });
    if (!parsed.success) return notice.show('error', `Check the form: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
    void storeSyncSettings(parsed.data, remember.checked).then(restart, (e: unknown) => notice.show('error', `Could not keep the settings: ${String(e)}`));
  });
  card.append(form, notice.element);
  return card;
}
