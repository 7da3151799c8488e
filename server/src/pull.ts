// Reading the change log after a cursor. Enrolls come with their template's payload; an
// enroll whose template a later change removed is skipped (that removal has a higher seq, so
// it is in the same or a later page and the client learns of the tombstone anyway, without
// ever receiving the removed biometric data). The cursor is the last row read, skipped or not.
import type { Pool } from 'pg';
import { PULL_PAGE_BYTES, type PullResponse, type PulledChange, type PulledEnroll } from '../../src/sync/protocol.ts';
import { SyncError } from './errors.ts';

const DEFAULT_LIMIT = 500;

interface Row {
  seq: string;
  kind: 'enroll' | 'remove_template' | 'remove_subject' | 'remove_gallery';
  gallery: string;
  subject: string | null;
  template_id: string | null;
  removed: string[] | null;
  model_id: string | null;
  enrolled_at: string | null;
  embedding: Buffer | null;
  box: { topLeftX: number; topLeftY: number; width: number; height: number } | null;
  quality: number | null;
  attributes: Record<string, never> | null;
  photo: Buffer | null;
  photo_type: string | null;
  sealed: Buffer | null;
  removed_seq: string | null;
}

function toChange(row: Row): PulledChange | undefined {
  const seq = Number(row.seq);
  if (row.kind !== 'enroll') {
    if (!row.removed?.length) return undefined; // removed nothing: nothing to tell
    const scope = row.kind === 'remove_template' ? 'template' : row.kind === 'remove_subject' ? 'subject' : 'gallery';
    return { seq, kind: 'remove', scope, gallery: row.gallery, ...(row.subject === null ? {} : { subject: row.subject }), template_ids: row.removed };
  }
  if (row.removed_seq !== null || row.model_id === null || row.enrolled_at === null) return undefined;
  const payload: PulledEnroll['payload'] = row.sealed
    ? { mode: 'sealed', data: row.sealed.toString('base64') }
    : {
        mode: 'plain',
        embedding: (row.embedding ?? Buffer.alloc(0)).toString('base64'),
        box: row.box ?? { topLeftX: 0, topLeftY: 0, width: 0, height: 0 },
        quality: row.quality ?? 0,
        attributes: row.attributes ?? {},
        ...(row.photo ? { photo: { mime_type: row.photo_type ?? 'application/octet-stream', base64: row.photo.toString('base64') } } : {}),
      };
  return { seq, kind: 'enroll', gallery: row.gallery, subject: row.subject ?? '', template_id: row.template_id ?? '', model_id: row.model_id, enrolled_at: row.enrolled_at, payload };
}

function payloadBytes(change: PulledChange): number {
  if (change.kind === 'remove') return change.template_ids.length * 40;
  return change.payload.mode === 'sealed' ? change.payload.data.length : change.payload.embedding.length + (change.payload.photo?.base64.length ?? 0) + 200;
}

export async function pull(pool: Pool, appId: string, after: string, limit = DEFAULT_LIMIT, galleries?: string[]): Promise<PullResponse> {
  const filter = galleries?.length ? 'and c.gallery = any($4)' : '';
  const params: unknown[] = [appId, after, limit + 1, ...(galleries?.length ? [galleries] : [])];
  const rows = (
    await pool.query<Row>(
      `select c.seq, c.kind, c.gallery, c.subject, c.template_id, c.removed,
              t.model_id, t.enrolled_at, t.embedding, t.box, t.quality, t.attributes, t.photo, t.photo_type, t.sealed, t.removed_seq
         from changes c
         left join templates t on c.kind = 'enroll' and t.app_id = c.app_id and t.template_id = c.template_id
        where c.app_id = $1 and c.seq > $2 ${filter}
        order by c.seq
        limit $3`,
      params,
    )
  ).rows;
  if (rows.length === 0 && after !== '0') {
    // a cursor is always the seq of one of this app's rows: past the last one, the log was lost
    const max = (await pool.query<{ max: string | null }>('select max(seq) as max from changes where app_id = $1', [appId])).rows[0]?.max;
    if (max === null || max === undefined || BigInt(after) > BigInt(max)) throw new SyncError('CURSOR_AHEAD');
  }
  const changes: PulledChange[] = [];
  let cursor = after;
  let bytes = 0;
  let more = rows.length > limit;
  for (const row of rows.slice(0, limit)) {
    const change = toChange(row);
    if (change) {
      const size = payloadBytes(change);
      // a page stops at ~4 MB of payload (photos), but always carries at least one change
      if (changes.length > 0 && bytes + size > PULL_PAGE_BYTES) {
        more = true;
        break;
      }
      bytes += size;
      changes.push(change);
    }
    cursor = row.seq;
  }
  return { changes, cursor, more, remaining: more ? await remainingAfter(pool, appId, cursor, galleries) : 0 };
}

/** The log's changes after `cursor` (an index-only count: the reply's `remaining`). */
async function remainingAfter(pool: Pool, appId: string, cursor: string, galleries?: string[]): Promise<number> {
  const filter = galleries?.length ? 'and gallery = any($3)' : '';
  const { rows } = await pool.query<{ n: string }>(`select count(*) as n from changes where app_id = $1 and seq > $2 ${filter}`, [appId, cursor, ...(galleries?.length ? [galleries] : [])]);
  return Number(rows[0]?.n ?? 0);
}
