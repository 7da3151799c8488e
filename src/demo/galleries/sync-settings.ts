// Where the demo keeps its sync settings (docs/demo.md). The team's app key and passphrase are
// never stored in clear and never put in a URL: the form (sync-form.ts) hands them to a vault
// in IndexedDB that holds them as AES-GCM ciphertext under a non-extractable CryptoKey made by
// this browser (its bytes cannot be read out, not even by this page's own script). Without
// "remember", the entry is read once at the next start and deleted at once: the settings then
// live only in that page's memory. Settings put in a URL by an older demo (?sync_app_key=…)
// are ignored and wiped from the address bar and from localStorage.
import { openDB, type IDBPDatabase } from 'idb';
import { z } from 'zod';
import type { SyncOptionsInput } from '../../sync/index.ts';

const DB = 'kairos-in-browser:demo-sync';
const STORE = 'vault';
/** the demo's old clear-text entry: removed wherever it is found */
const LEGACY_KEY = 'kairos-in-browser:demo-sync';
const SECRET_PARAMS = ['sync_app_key', 'sync_passphrase'];

export const DemoSyncSettingsSchema = z.object({
  url: z.url(),
  appId: z.string().min(1),
  appKey: z.string().min(1),
  passphrase: z.string().min(1).optional(),
});
export type DemoSyncSettings = z.infer<typeof DemoSyncSettingsSchema>;

interface Sealed {
  iv: Uint8Array<ArrayBuffer>;
  data: ArrayBuffer;
  /** false: read once at the next start, then deleted */
  remember: boolean;
}

function open(): Promise<IDBPDatabase> {
  return openDB(DB, 1, { upgrade: (db) => db.createObjectStore(STORE) });
}

async function vaultKey(db: IDBPDatabase): Promise<CryptoKey> {
  const stored = (await db.get(STORE, 'key')) as CryptoKey | undefined;
  if (stored) return stored;
  // extractable: false — IndexedDB keeps the key object, but nobody can export its bytes
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  await db.put(STORE, key, 'key');
  return key;
}

/** Keeps the settings, sealed, for the next start; `remember`: for every start until forgotten. */
export async function storeSyncSettings(settings: DemoSyncSettings, remember: boolean): Promise<void> {
  const db = await open();
  try {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await vaultKey(db), new TextEncoder().encode(JSON.stringify(DemoSyncSettingsSchema.parse(settings))));
    await db.put(STORE, { iv, data, remember } satisfies Sealed, 'settings');
  } finally {
    db.close();
  }
}

/** The settings for this start, if any (a one-session entry is deleted as it is read). */
export async function loadSyncSettings(): Promise<{ settings: DemoSyncSettings; remembered: boolean } | undefined> {
  const db = await open();
  try {
    const sealed = (await db.get(STORE, 'settings')) as Sealed | undefined;
    if (!sealed) return undefined;
    if (!sealed.remember) await db.delete(STORE, 'settings');
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: sealed.iv }, await vaultKey(db), sealed.data);
    const parsed = DemoSyncSettingsSchema.safeParse(JSON.parse(new TextDecoder().decode(plain)));
    return parsed.success ? { settings: parsed.data, remembered: sealed.remember } : undefined;
  } catch {
    return undefined; // a key from another browser profile, or no IndexedDB: no sync
  } finally {
    db.close();
  }
}

/** Forgets the settings and the vault's key. */
export async function forgetSyncSettings(): Promise<void> {
  const db = await open();
  try {
    await db.clear(STORE);
  } finally {
    db.close();
  }
}

/**
 * What the URL may still say (the service and the app id, to prefill the form), after wiping
 * any secret an old link carried from the address bar and the old clear-text entry.
 */
export function scrubSecrets(): { url?: string; appId?: string } {
  const address = new URL(location.href);
  if (SECRET_PARAMS.some((p) => address.searchParams.has(p))) {
    for (const p of SECRET_PARAMS) address.searchParams.delete(p);
    history.replaceState(history.state, '', address);
  }
  try {
    localStorage.removeItem(LEGACY_KEY);
  } catch {
    // no storage: nothing kept there either
  }
  const url = address.searchParams.get('sync_url') ?? undefined;
  const appId = address.searchParams.get('sync_app_id') ?? undefined;
  return { ...(url ? { url } : {}), ...(appId ? { appId } : {}) };
}

export function toSyncOptions(settings: DemoSyncSettings): SyncOptionsInput {
  return { url: settings.url, appId: settings.appId, appKey: settings.appKey, ...(settings.passphrase ? { passphrase: settings.passphrase } : {}) };
}
