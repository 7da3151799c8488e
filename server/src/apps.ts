// Accounts: an app_id and its app_key. Keys are stored as scrypt hashes with a salt of their
// own and compared in constant time. scrypt is slow on purpose (~tens of ms), so a process
// remembers for a minute which (app_id, key digest) pairs it verified; the cache holds only
// a SHA-256 of the presented key, and losing it costs one scrypt — nothing correctness needs.
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';
import { z } from 'zod';
import { SyncError } from './errors.ts';

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;
const CACHE_MS = 60_000;
const CACHE_MAX = 10_000;

export const AppIdSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/);
export const AppKeySchema = z.string().min(8).max(256);

function scryptHash(key: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(key, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }, (error, hash) => (error ? reject(error) : resolve(hash))),
  );
}

/** Creates the app or replaces its key (idempotent: provisioning runs at every start). */
export async function upsertApp(pool: Pool, appId: string, appKey: string): Promise<void> {
  AppIdSchema.parse(appId);
  AppKeySchema.parse(appKey);
  const salt = randomBytes(16);
  const hash = await scryptHash(appKey, salt);
  await pool.query(
    `insert into apps (app_id, key_hash, key_salt) values ($1, $2, $3)
     on conflict (app_id) do update set key_hash = excluded.key_hash, key_salt = excluded.key_salt`,
    [appId, hash, salt],
  );
}

/** "id:key,id2:key2" (SYNC_APPS) → pairs */
export function parseAppList(text: string | undefined): { appId: string; appKey: string }[] {
  if (!text) return [];
  return text
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':');
      if (at <= 0) throw new Error(`SYNC_APPS: "${pair.slice(0, 20)}…" is not app_id:app_key`);
      return { appId: pair.slice(0, at), appKey: pair.slice(at + 1) };
    });
}

export class Authenticator {
  private readonly verified = new Map<string, number>();

  constructor(private readonly pool: Pool) {}

  /** The app_id when the pair is right; UNAUTHORIZED otherwise (same answer for an unknown app and a wrong key). */
  async authenticate(appId: unknown, appKey: unknown): Promise<string> {
    if (typeof appId !== 'string' || typeof appKey !== 'string' || !AppIdSchema.safeParse(appId).success || appKey.length === 0 || appKey.length > 256) {
      throw new SyncError('UNAUTHORIZED');
    }
    const digest = createHash('sha256').update(appId).update('\0').update(appKey).digest('base64');
    const until = this.verified.get(digest);
    if (until !== undefined && until > Date.now()) return appId;
    const row = (await this.pool.query<{ key_hash: Buffer; key_salt: Buffer }>('select key_hash, key_salt from apps where app_id = $1', [appId])).rows[0];
    // an unknown app still costs one scrypt, so timing does not tell which app ids exist
    const salt = row?.key_salt ?? Buffer.alloc(16);
    const hash = await scryptHash(appKey, salt);
    const expected = row?.key_hash ?? Buffer.alloc(SCRYPT.keylen, 0xff);
    if (!(hash.length === expected.length && timingSafeEqual(hash, expected)) || !row) throw new SyncError('UNAUTHORIZED');
    if (this.verified.size >= CACHE_MAX) this.verified.clear();
    this.verified.set(digest, Date.now() + CACHE_MS);
    return appId;
  }
}
