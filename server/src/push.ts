// Applying a push: each change of the batch is accepted (it gets the next server sequence
// number and a row in the change log) or rejected (nothing written), in one transaction.
//
// Ordering. Pulls read "everything after seq N", so within an app a change may only become
// visible after every change with a smaller seq: the batch first takes the app's advisory
// lock and only then draws sequence numbers, so an app's changes commit in seq order.
// Idempotency. A change whose change_id the app has already pushed is answered from the log
// (same seq, same removed ids) and changes nothing: a client that lost the reply — killed
// mid-push, a dropped connection, a restarted service — simply sends the batch again.
import type { PoolClient } from 'pg';
import type { Change, EnrollChange, PushResult } from '../../src/sync/protocol.ts';
import { SyncError } from './errors.ts';

interface GalleryRow {
  encryption: unknown;
  model_id: string | null;
}

const TOMBSTONE = `removed_seq = $1, embedding = null, box = null, quality = null, attributes = null, photo = null, photo_type = null, sealed = null`;

function decodeBase64(text: string): Buffer {
  return Buffer.from(text, 'base64');
}

/** The float32 little-endian embedding, checked: whole floats, all finite. */
function embeddingBytes(text: string): Buffer {
  const bytes = decodeBase64(text);
  if (bytes.length === 0 || bytes.length % 4 !== 0) throw new SyncError('BAD_REQUEST', 'payload.embedding: is not whole float32 values');
  for (let i = 0; i < bytes.length; i += 4) {
    if (!Number.isFinite(bytes.readFloatLE(i))) throw new SyncError('BAD_REQUEST', 'payload.embedding: holds a value that is not finite');
  }
  return bytes;
}

async function nextSeq(db: PoolClient): Promise<number> {
  return Number((await db.query<{ seq: string }>(`select nextval('change_seq') as seq`)).rows[0]!.seq);
}

async function logChange(db: PoolClient, appId: string, seq: number, change: Change, removed: string[] | null): Promise<void> {
  const subject = 'subject' in change ? change.subject : null;
  const templateId = 'template_id' in change ? change.template_id : null;
  await db.query('insert into changes (seq, app_id, change_id, kind, gallery, subject, template_id, removed) values ($1, $2, $3, $4, $5, $6, $7, $8)', [
    seq,
    appId,
    change.change_id,
    change.kind,
    change.gallery,
    subject,
    templateId,
    removed,
  ]);
}

async function enroll(db: PoolClient, appId: string, change: EnrollChange): Promise<PushResult> {
  const sealed = change.payload.mode === 'sealed';
  let gallery = (await db.query<GalleryRow>('select encryption, model_id from galleries where app_id = $1 and gallery = $2 for update', [appId, change.gallery])).rows[0];
  if (gallery && (gallery.encryption !== null) !== sealed) {
    throw new SyncError('ENCRYPTION_MISMATCH', sealed ? `gallery "${change.gallery}" is not end-to-end encrypted: its templates go in clear` : `gallery "${change.gallery}" is end-to-end encrypted: a template in clear is refused`);
  }
  if (!gallery && sealed) throw new SyncError('ENCRYPTION_MISMATCH', `gallery "${change.gallery}" has no encryption settings: PUT /v1/galleries/:gallery first`);
  if (gallery?.model_id && gallery.model_id !== change.model_id) {
    throw new SyncError('MODEL_MISMATCH', `gallery "${change.gallery}" holds templates of embedding model ${gallery.model_id}; this one was made by ${change.model_id} and is refused (re-enroll with the same model version)`);
  }
  const taken = await db.query('select 1 from templates where app_id = $1 and template_id = $2', [appId, change.template_id]);
  if (taken.rowCount) throw new SyncError('DUPLICATE_TEMPLATE', `template id ${change.template_id} is already used by another change`);
  const plain = change.payload.mode === 'plain' ? change.payload : undefined;
  const embedding = plain ? embeddingBytes(plain.embedding) : null;

  const seq = await nextSeq(db);
  if (!gallery) {
    await db.query('insert into galleries (app_id, gallery, encryption, model_id, created_seq) values ($1, $2, null, $3, $4)', [appId, change.gallery, change.model_id, seq]);
    gallery = { encryption: null, model_id: change.model_id };
  } else if (!gallery.model_id) {
    await db.query('update galleries set model_id = $3 where app_id = $1 and gallery = $2', [appId, change.gallery, change.model_id]);
  }
  await db.query(
    `insert into templates (app_id, template_id, gallery, subject, model_id, enrolled_at, embedding, box, quality, attributes, photo, photo_type, sealed, enroll_seq)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      appId,
      change.template_id,
      change.gallery,
      change.subject,
      change.model_id,
      change.enrolled_at,
      embedding,
      plain ? JSON.stringify(plain.box) : null,
      plain?.quality ?? null,
      plain ? JSON.stringify(plain.attributes) : null,
      plain?.photo ? decodeBase64(plain.photo.base64) : null,
      plain?.photo?.mime_type ?? null,
      change.payload.mode === 'sealed' ? decodeBase64(change.payload.data) : null,
      seq,
    ],
  );
  await db.query(
    `insert into subjects (app_id, gallery, subject, live_templates) values ($1, $2, $3, 1)
     on conflict (app_id, gallery, subject) do update set live_templates = subjects.live_templates + 1`,
    [appId, change.gallery, change.subject],
  );
  await logChange(db, appId, seq, change, null);
  return { change_id: change.change_id, status: 'accepted', seq };
}

/** Tombstones the live templates `where` selects; returns their ids. */
async function tombstone(db: PoolClient, seq: number, where: string, params: unknown[]): Promise<string[]> {
  const rows = await db.query<{ template_id: string; gallery: string; subject: string }>(
    `update templates set ${TOMBSTONE} where ${where} and removed_seq is null returning template_id, gallery, subject`,
    [seq, ...params],
  );
  // subjects count their live templates; one left at zero is gone
  const perSubject = new Map<string, { gallery: string; subject: string; n: number }>();
  for (const r of rows.rows) {
    const key = JSON.stringify([r.gallery, r.subject]);
    const entry = perSubject.get(key) ?? { gallery: r.gallery, subject: r.subject, n: 0 };
    entry.n++;
    perSubject.set(key, entry);
  }
  for (const { gallery, subject, n } of perSubject.values()) {
    const left = await db.query<{ live_templates: number }>(
      'update subjects set live_templates = live_templates - $4 where app_id = $1 and gallery = $2 and subject = $3 returning live_templates',
      [params[0], gallery, subject, n],
    );
    if ((left.rows[0]?.live_templates ?? 0) <= 0) await db.query('delete from subjects where app_id = $1 and gallery = $2 and subject = $3', [params[0], gallery, subject]);
  }
  return rows.rows.map((r) => r.template_id);
}

async function remove(db: PoolClient, appId: string, change: Exclude<Change, EnrollChange>): Promise<PushResult> {
  if (change.kind === 'remove_template') {
    const row = (await db.query<{ gallery: string; subject: string }>('select gallery, subject from templates where app_id = $1 and template_id = $2', [appId, change.template_id])).rows[0];
    // another app's template is as unknown as one that never existed: no existence leaks across apps
    if (!row) throw new SyncError('TEMPLATE_NOT_FOUND', `template ${change.template_id} was never pushed to this app`);
    if (row.gallery !== change.gallery || row.subject !== change.subject) {
      throw new SyncError('TEMPLATE_NOT_FOUND', `template ${change.template_id} is not a template of that gallery and subject`);
    }
  }
  const seq = await nextSeq(db);
  let removed: string[];
  if (change.kind === 'remove_template') removed = await tombstone(db, seq, 'app_id = $2 and template_id = $3', [appId, change.template_id]);
  else if (change.kind === 'remove_subject') removed = await tombstone(db, seq, 'app_id = $2 and gallery = $3 and subject = $4', [appId, change.gallery, change.subject]);
  else {
    removed = await tombstone(db, seq, 'app_id = $2 and gallery = $3', [appId, change.gallery]);
    // an emptied gallery may be refilled by another model version; its encryption settings stay
    await db.query('update galleries set model_id = null where app_id = $1 and gallery = $2', [appId, change.gallery]);
  }
  await logChange(db, appId, seq, change, removed);
  return { change_id: change.change_id, status: 'accepted', seq, removed };
}

async function replayed(db: PoolClient, appId: string, changeId: string): Promise<PushResult | undefined> {
  const row = (await db.query<{ seq: string; removed: string[] | null }>('select seq, removed from changes where app_id = $1 and change_id = $2', [appId, changeId])).rows[0];
  if (!row) return undefined;
  return { change_id: changeId, status: 'accepted', seq: Number(row.seq), ...(row.removed ? { removed: row.removed } : {}) };
}

/** Runs inside the caller's transaction; the caller commits and the NOTIFY goes out with it. */
export async function applyPush(db: PoolClient, appId: string, changes: readonly Change[]): Promise<PushResult[]> {
  await db.query('select pg_advisory_xact_lock(hashtext($1))', [appId]);
  const results: PushResult[] = [];
  for (const change of changes) {
    const again = await replayed(db, appId, change.change_id);
    if (again) {
      results.push(again);
      continue;
    }
    // a rejection is decided before the change writes anything, so a savepoint is not needed
    try {
      results.push(change.kind === 'enroll' ? await enroll(db, appId, change) : await remove(db, appId, change));
    } catch (error) {
      if (!(error instanceof SyncError)) throw error;
      results.push({ change_id: change.change_id, status: 'rejected', error: error.info });
    }
  }
  const last = results.reduce((max, r) => (r.status === 'accepted' ? Math.max(max, r.seq) : max), 0);
  if (last > 0) await db.query(`select pg_notify('sync_changes', $1)`, [JSON.stringify({ app_id: appId, seq: last })]);
  return results;
}
