// Gallery settings: whether a gallery is end-to-end encrypted (its PBKDF2 salt, iterations
// and check value — never a key) and which embedding model its templates come from.
// The first writer decides a gallery's encryption; later PUTs get the settings that won, so
// every browser derives its key from the same salt.
import type { Pool } from 'pg';
import { EncryptionSchema, type Encryption, type GallerySettings } from '../../src/sync/protocol.ts';

interface Row {
  gallery: string;
  encryption: unknown;
  model_id: string | null;
}

function settings(row: Row): GallerySettings {
  const encryption = row.encryption === null ? null : EncryptionSchema.parse(row.encryption);
  return { gallery: row.gallery, encryption, model_id: row.model_id };
}

export async function listGalleries(pool: Pool, appId: string): Promise<GallerySettings[]> {
  const rows = await pool.query<Row>('select gallery, encryption, model_id from galleries where app_id = $1 order by gallery', [appId]);
  return rows.rows.map(settings);
}

/** Creates the gallery with `encryption` unless it exists; returns the settings in force. */
export async function putGallery(pool: Pool, appId: string, gallery: string, encryption: Encryption | null): Promise<GallerySettings> {
  await pool.query(
    `insert into galleries (app_id, gallery, encryption, model_id, created_seq) values ($1, $2, $3, null, nextval('change_seq'))
     on conflict (app_id, gallery) do nothing`,
    [appId, gallery, encryption === null ? null : JSON.stringify(encryption)],
  );
  const row = (await pool.query<Row>('select gallery, encryption, model_id from galleries where app_id = $1 and gallery = $2', [appId, gallery])).rows[0]!;
  return settings(row);
}
