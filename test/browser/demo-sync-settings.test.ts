// The demo's sync settings (src/demo/galleries/sync-settings.ts, sync-form.ts): entered in a
// form, kept in IndexedDB only as AES-GCM ciphertext under a non-extractable key, read once
// when not remembered, never in localStorage or the URL (an old link's secrets are wiped).
import { afterEach, describe, expect, it } from 'vitest';
import { syncForm } from '../../src/demo/galleries/sync-form.ts';
import { forgetSyncSettings, loadSyncSettings, scrubSecrets } from '../../src/demo/galleries/sync-settings.ts';

const SETTINGS = { url: 'https://sync.example.com/', appId: 'front-desk', appKey: 'k3y-that-must-not-leak', passphrase: 'team passphrase that must not leak' };

/** every record of the vault's object store, raw */
async function rawVault(): Promise<Record<string, unknown>> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open('kairos-in-browser:demo-sync');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  const tx = db.transaction('vault');
  const [keys, values] = await Promise.all(
    [tx.objectStore('vault').getAllKeys(), tx.objectStore('vault').getAll()].map((r) => new Promise<unknown[]>((resolve) => (r.onsuccess = () => resolve(r.result as unknown[])))),
  );
  db.close();
  return Object.fromEntries(keys!.map((k, i) => [String(k), values![i]]));
}

/** Fills and submits the form; resolves when it asks for the page's restart. */
async function submit(remember: boolean): Promise<void> {
  let restarted!: () => void;
  const done = new Promise<void>((resolve) => (restarted = resolve));
  const form = syncForm({ restart: restarted });
  document.body.append(form);
  const set = (name: string, value: string) => ((form.querySelector(`[name=${name}]`) as HTMLInputElement).value = value);
  set('sync_url', SETTINGS.url);
  set('sync_app_id', SETTINGS.appId);
  set('sync_app_key', SETTINGS.appKey);
  set('sync_passphrase', SETTINGS.passphrase);
  (form.querySelector('[name=sync_remember]') as HTMLInputElement).checked = remember;
  form.querySelector('form')!.requestSubmit();
  await done;
  form.remove();
}

afterEach(() => forgetSyncSettings());

describe('the demo sync settings', () => {
  it('"remember": kept as ciphertext under a key that cannot be exported, read at every start', async () => {
    await submit(true);
    const vault = await rawVault();
    const key = vault.key as CryptoKey;
    expect(key).toBeInstanceOf(CryptoKey);
    expect(key.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('raw', key)).rejects.toThrow();
    const sealed = vault.settings as { data: ArrayBuffer };
    const bytes = new TextDecoder('latin1').decode(sealed.data);
    for (const secret of [SETTINGS.appKey, SETTINGS.passphrase, 'front-desk']) expect(bytes).not.toContain(secret);
    for (let i = 0; i < localStorage.length; i++) expect(localStorage.getItem(localStorage.key(i)!)).not.toContain(SETTINGS.appKey);
    expect(await loadSyncSettings()).toEqual({ settings: SETTINGS, remembered: true });
    expect(await loadSyncSettings()).toEqual({ settings: SETTINGS, remembered: true });
    await forgetSyncSettings();
    expect(await loadSyncSettings()).toBeUndefined();
  });

  it('without "remember": read once at the next start, then gone from storage', async () => {
    await submit(false);
    expect(await loadSyncSettings()).toEqual({ settings: SETTINGS, remembered: false });
    expect((await rawVault()).settings).toBeUndefined();
    expect(await loadSyncSettings()).toBeUndefined();
  });

  it("an old link's key and passphrase are wiped from the address bar and the old clear-text entry from localStorage", () => {
    const before = location.href;
    localStorage.setItem('kairos-in-browser:demo-sync', JSON.stringify(SETTINGS));
    const address = new URL(before);
    for (const [k, v] of Object.entries({ sync_url: SETTINGS.url, sync_app_id: SETTINGS.appId, sync_app_key: SETTINGS.appKey, sync_passphrase: SETTINGS.passphrase })) address.searchParams.set(k, v);
    history.replaceState(history.state, '', address);
    try {
      expect(scrubSecrets()).toEqual({ url: SETTINGS.url, appId: SETTINGS.appId });
      expect(location.href).not.toContain('sync_app_key');
      expect(location.href).not.toContain('sync_passphrase');
      expect(localStorage.getItem('kairos-in-browser:demo-sync')).toBeNull();
    } finally {
      history.replaceState(history.state, '', before);
    }
  });
});
