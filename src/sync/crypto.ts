// End-to-end encryption of shared galleries (WebCrypto). A team passphrase and the gallery's
// random salt give, by PBKDF2-SHA256, 512 bits: an AES-256-GCM key for the templates and an
// HMAC-SHA256 key for subject ids. The service stores the salt, the iteration count and a
// check value (AES-GCM of a fixed text), never a key: a wrong passphrase fails to open the
// check, so it is refused before anything is decrypted — nothing undecryptable ever reaches
// the search index.
import { base64ToBytes, bytesToBase64 } from '../store/base64.ts';
import type { Encryption } from './protocol.ts';
import { SyncError } from './errors.ts';

export const PBKDF2_ITERATIONS = 600_000;
const CHECK_TEXT = 'kairos-in-browser/sync gallery key check v1';
const IV_BYTES = 12;

export interface GalleryKey {
  aes: CryptoKey;
  hmac: CryptoKey;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function bytes(text: string): Uint8Array<ArrayBuffer> {
  const b = base64ToBytes(text);
  if (!b) throw new SyncError('SERVICE', 'the gallery’s encryption settings are not valid base64');
  return new Uint8Array(b);
}

async function derive(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<GalleryKey> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(passphrase), 'PBKDF2', false, ['deriveBits']);
  const bits = new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, material, 512));
  const aes = await crypto.subtle.importKey('raw', bits.slice(0, 32), 'AES-GCM', false, ['encrypt', 'decrypt']);
  const hmac = await crypto.subtle.importKey('raw', bits.slice(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return { aes, hmac };
}

async function encrypt(key: GalleryKey, plain: Uint8Array<ArrayBuffer>, aad: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(aad) }, key.aes, plain));
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return bytesToBase64(out);
}

/** undefined when the data does not open under this key (wrong key, or tampered with) */
async function decrypt(key: GalleryKey, data: string, aad: string): Promise<Uint8Array | undefined> {
  const all = base64ToBytes(data);
  if (!all || all.length <= IV_BYTES) return undefined;
  try {
    return new Uint8Array(
      await crypto.subtle.decrypt({ name: 'AES-GCM', iv: new Uint8Array(all.subarray(0, IV_BYTES)), additionalData: encoder.encode(aad) }, key.aes, new Uint8Array(all.subarray(IV_BYTES))),
    );
  } catch {
    return undefined;
  }
}

/** New settings for a gallery this browser shares first: a random salt and the check value. */
export async function newEncryption(passphrase: string): Promise<{ encryption: Encryption; key: GalleryKey }> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await derive(passphrase, salt, PBKDF2_ITERATIONS);
  const check = await encrypt(key, encoder.encode(CHECK_TEXT), 'check');
  return { encryption: { scheme: 'pbkdf2-sha256/aes-256-gcm', salt: bytesToBase64(salt), iterations: PBKDF2_ITERATIONS, check }, key };
}

/** The gallery's key from the passphrase; WRONG_PASSPHRASE when it does not open the check value. */
export async function openEncryption(passphrase: string, encryption: Encryption, gallery: string): Promise<GalleryKey> {
  const key = await derive(passphrase, bytes(encryption.salt), encryption.iterations);
  const check = await decrypt(key, encryption.check, 'check');
  if (!check || decoder.decode(check) !== CHECK_TEXT) throw new SyncError('WRONG_PASSPHRASE', `${gallery}: the passphrase does not open this shared gallery (it was created with another team passphrase)`, gallery);
  return key;
}

/** AES-GCM of a template's JSON, bound to its gallery, template id and model (the service cannot swap them). */
export function seal(key: GalleryKey, content: unknown, binding: string): Promise<string> {
  return encrypt(key, encoder.encode(JSON.stringify(content)), binding);
}

export async function unseal(key: GalleryKey, data: string, binding: string): Promise<unknown> {
  const plain = await decrypt(key, data, binding);
  if (!plain) return undefined;
  try {
    return JSON.parse(decoder.decode(plain)) as unknown;
  } catch {
    return undefined;
  }
}

/** The subject id the service sees in a sealed gallery: HMAC-SHA256, base64url (43 characters). */
export async function subjectTag(key: GalleryKey, subject: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key.hmac, encoder.encode(subject)));
  return bytesToBase64(mac).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function bindingOf(gallery: string, templateId: string, modelId: string): string {
  return JSON.stringify([gallery, templateId, modelId]);
}
