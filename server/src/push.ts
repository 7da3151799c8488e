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

interface TemplateRef {
  gallery: string;
  subject: string;
}

/**
 * The enrolls of a batch, gathered and written with one statement per table (unnest) rather
 * than ~6 round trips each: the app's lock is held while a batch is applied, so its length is
 * every other push's wait. Flushed before a removal (which must see them) and at the end.
 */
class PendingEnrolls {
  private templates: unknown[][] = Array.from({ length: 13 }, () => []);
  private log: unknown[][] = Array.from({ length: 5 }, () => []);
  private subjects = new Map<string, { gallery: string; subject: string; n: number }>();
  private newGalleries: unknown[][] = [[], [], []];
  private models: unknown[][] = [[], []];

  get empty(): boolean {
    return this.log[0]!.length === 0;
  }

  add(change: EnrollChange, seq: number, newGallery: boolean, setModel: boolean): void {
    const plain = change.payload.mode === 'plain' ? change.payload : undefined;
    const values = [
      change.template_id,
      change.gallery,
      change.subject,
      change.model_id,
      change.enrolled_at,
      plain ? embeddingBytes(plain.embedding) : null,
      plain ? JSON.stringify(plain.box) : null,
      plain?.quality ?? null,
      plain ? JSON.stringify(plain.attributes) : null,
      plain?.photo ? decodeBase64(plain.photo.base64) : null,
      plain?.photo?.mime_type ?? null,
      change.payload.mode === 'sealed' ? decodeBase64(change.payload.data) : null,
      seq,
    ];
    values.forEach((v, i) => this.templates[i]!.push(v));
    [seq, change.change_id, change.gallery, change.subject, change.template_id].forEach((v, i) => this.log[i]!.push(v));
    const key = JSON.stringify([change.gallery, change.subject]);
    const entry = this.subjects.get(key) ?? { gallery: change.gallery, subject: change.subject, n: 0 };
    entry.n++;
    this.subjects.set(key, entry);
    if (newGallery) [change.gallery, change.model_id, seq].forEach((v, i) => this.newGalleries[i]!.push(v));
    else if (setModel) [change.gallery, change.model_id].forEach((v, i) => this.models[i]!.push(v));
  }

  async flush(db: PoolClient, appId: string): Promise<void> {
    if (this.empty) return;
    if (this.newGalleries[0]!.length) {
      await db.query(
        `insert into galleries (app_id, gallery, encryption, model_id, created_seq)
         select $1, g, null, m, s from unnest($2::text[], $3::text[], $4::bigint[]) as v(g, m, s)`,
        [appId, ...this.newGalleries],
      );
    }
    if (this.models[0]!.length) {
      await db.query(`update galleries set model_id = v.m from unnest($2::text[], $3::text[]) as v(g, m) where app_id = $1 and gallery = v.g`, [appId, ...this.models]);
    }
    await db.query(
      `insert into templates (app_id, template_id, gallery, subject, model_id, enrolled_at, embedding, box, quality, attributes, photo, photo_type, sealed, enroll_seq)
       select $1, t, g, s, m, e, emb, box::jsonb, q, attr::jsonb, ph, pt, sl, seq
         from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bytea[], $8::text[], $9::real[], $10::text[], $11::bytea[], $12::text[], $13::bytea[], $14::bigint[])
           as v(t, g, s, m, e, emb, box, q, attr, ph, pt, sl, seq)`,
      [appId, ...this.templates],
    );
    const subjects = [...this.subjects.values()];
    await db.query(
      `insert into subjects (app_id, gallery, subject, live_templates)
       select $1, g, s, n from unnest($2::text[], $3::text[], $4::int[]) as v(g, s, n)
       on conflict (app_id, gallery, subject) do update set live_templates = subjects.live_templates + excluded.live_templates`,
      [appId, subjects.map((x) => x.gallery), subjects.map((x) => x.subject), subjects.map((x) => x.n)],
    );
    await db.query(
      `insert into changes (seq, app_id, change_id, kind, gallery, subject, template_id, removed)
       select q, $1, c, 'enroll', g, s, t, null from unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) as v(q, c, g, s, t)`,
      [appId, ...this.log],
    );
    this.templates = Array.from({ length: 13 }, () => []);
    this.log = Array.from({ length: 5 }, () => []);
    this.subjects = new Map();
    this.newGalleries = [[], [], []];
    this.models = [[], []];
  }
}

/** What the batch knows up front (one query each), kept current as its changes are accepted. */
interface BatchState {
  galleries: Map<string, GalleryRow>;
  templates: Map<string, TemplateRef>;
  seqs: number[];
  pending: PendingEnrolls;
}

function nextSeq(state: BatchState): number {
  const seq = state.seqs.shift();
  if (seq === undefined) throw new Error('sequence numbers drawn for the batch ran out');
  return seq;
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

/** Checks an enroll against the batch's state and queues it; decided without a round trip. */
function enroll(state: BatchState, change: EnrollChange): PushResult {
  const sealed = change.payload.mode === 'sealed';
  const gallery = state.galleries.get(change.gallery);
  if (gallery && (gallery.encryption !== null) !== sealed) {
    throw new SyncError('ENCRYPTION_MISMATCH', sealed ? `gallery "${change.gallery}" is not end-to-end encrypted: its templates go in clear` : `gallery "${change.gallery}" is end-to-end encrypted: a template in clear is refused`);
  }
  if (!gallery && sealed) throw new SyncError('ENCRYPTION_MISMATCH', `gallery "${change.gallery}" has no encryption settings: PUT /v1/galleries/:gallery first`);
  if (gallery?.model_id && gallery.model_id !== change.model_id) {
    throw new SyncError('MODEL_MISMATCH', `gallery "${change.gallery}" holds templates of embedding model ${gallery.model_id}; this one was made by ${change.model_id} and is refused (re-enroll with the same model version)`);
  }
  if (state.templates.has(change.template_id)) throw new SyncError('DUPLICATE_TEMPLATE', `template id ${change.template_id} is already used by another change`);
  if (change.payload.mode === 'plain') embeddingBytes(change.payload.embedding); // a bad embedding is refused before anything is queued
  const seq = nextSeq(state);
  state.pending.add(change, seq, !gallery, gallery !== undefined && !gallery.model_id);
  state.galleries.set(change.gallery, { encryption: gallery?.encryption ?? null, model_id: change.model_id });
  state.templates.set(change.template_id, { gallery: change.gallery, subject: change.subject });
  return { change_id: change.change_id, status: 'accepted', seq };
}

/** Tombstones the live templates `where` selects ($1 is the seq, $2 the app); returns their ids. */
export async function tombstone(db: PoolClient, seq: number, where: string, params: unknown[]): Promise<string[]> {
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

async function remove(db: PoolClient, appId: string, state: BatchState, change: Exclude<Change, EnrollChange>): Promise<PushResult> {
  if (change.kind === 'remove_template') {
    const row = state.templates.get(change.template_id);
    // another app's template is as unknown as one that never existed: no existence leaks across apps
    if (!row) throw new SyncError('TEMPLATE_NOT_FOUND', `template ${change.template_id} was never pushed to this app`);
    if (row.gallery !== change.gallery || row.subject !== change.subject) {
      throw new SyncError('TEMPLATE_NOT_FOUND', `template ${change.template_id} is not a template of that gallery and subject`);
    }
  }
  // the removal must see the batch's earlier enrolls
  await state.pending.flush(db, appId);
  const seq = nextSeq(state);
  let removed: string[];
  if (change.kind === 'remove_template') removed = await tombstone(db, seq, 'app_id = $2 and template_id = $3', [appId, change.template_id]);
  else if (change.kind === 'remove_subject') removed = await tombstone(db, seq, 'app_id = $2 and gallery = $3 and subject = $4', [appId, change.gallery, change.subject]);
  else {
    removed = await tombstone(db, seq, 'app_id = $2 and gallery = $3', [appId, change.gallery]);
    // an emptied gallery may be refilled by another model version; its encryption settings stay
    await db.query('update galleries set model_id = null where app_id = $1 and gallery = $2', [appId, change.gallery]);
    const g = state.galleries.get(change.gallery);
    if (g) state.galleries.set(change.gallery, { ...g, model_id: null });
  }
  await logChange(db, appId, seq, change, removed);
  return { change_id: change.change_id, status: 'accepted', seq, removed };
}

/** Runs inside the caller's transaction; the caller commits and the NOTIFY goes out with it. */
export async function applyPush(db: PoolClient, appId: string, changes: readonly Change[]): Promise<PushResult[]> {
  await db.query('select pg_advisory_xact_lock(hashtext($1))', [appId]);
  const changeIds = changes.map((c) => c.change_id);
  const templateIds = changes.flatMap((c) => ('template_id' in c ? [c.template_id] : []));
  const galleryNames = [...new Set(changes.map((c) => c.gallery))];
  const [logged, galleries, templates, seqs] = [
    await db.query<{ change_id: string; seq: string; removed: string[] | null }>('select change_id, seq, removed from changes where app_id = $1 and change_id = any($2::text[])', [appId, changeIds]),
    await db.query<GalleryRow & { gallery: string }>('select gallery, encryption, model_id from galleries where app_id = $1 and gallery = any($2::text[]) for update', [appId, galleryNames]),
    await db.query<TemplateRef & { template_id: string }>('select template_id, gallery, subject from templates where app_id = $1 and template_id = any($2::text[])', [appId, templateIds]),
    // drawn after the lock, so the app's changes commit in seq order (pulls rely on it)
    await db.query<{ seq: string }>(`select nextval('change_seq') as seq from generate_series(1, $1)`, [changes.length]),
  ];
  const state: BatchState = {
    galleries: new Map(galleries.rows.map((g) => [g.gallery, { encryption: g.encryption, model_id: g.model_id }])),
    templates: new Map(templates.rows.map((t) => [t.template_id, { gallery: t.gallery, subject: t.subject }])),
    seqs: seqs.rows.map((r) => Number(r.seq)).sort((a, b) => a - b),
    pending: new PendingEnrolls(),
  };
  const answered = new Map<string, PushResult>(
    logged.rows.map((r) => [r.change_id, { change_id: r.change_id, status: 'accepted', seq: Number(r.seq), ...(r.removed ? { removed: r.removed } : {}) }]),
  );
  const results: PushResult[] = [];
  for (const change of changes) {
    // replayed (now or earlier in this batch): the same answer, nothing written
    const again = answered.get(change.change_id);
    if (again) {
      results.push(again);
      continue;
    }
    let result: PushResult;
    // a rejection is decided before the change writes anything, so a savepoint is not needed
    try {
      result = change.kind === 'enroll' ? enroll(state, change) : await remove(db, appId, state, change);
    } catch (error) {
      if (!(error instanceof SyncError)) throw error;
      result = { change_id: change.change_id, status: 'rejected', error: error.info };
    }
    if (result.status === 'accepted') answered.set(change.change_id, result);
    results.push(result);
  }
  await state.pending.flush(db, appId);
  const last = results.reduce((max, r) => (r.status === 'accepted' ? Math.max(max, r.seq) : max), 0);
  if (last > 0) await db.query(`select pg_notify('sync_changes', $1)`, [JSON.stringify({ app_id: appId, seq: last })]);
  return results;
}
