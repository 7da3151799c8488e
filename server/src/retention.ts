// Retention enforced by the service itself: a gallery with `retention_days` loses every
// template enrolled more than that many days ago, by PostgreSQL's clock (now()), whether or not
// any device comes back. Each expired template is tombstoned like a removal (biometric columns
// emptied) and logged as a `remove_template` change (change id `retention:<template id>`), so
// every device that syncs removes it too. Run by a timer in each process; the per-app lock
// makes concurrent runs and pushes take turns, and an already-tombstoned template is skipped.
import type { Pool } from 'pg';
import type { RetentionSettings } from '../../src/sync/protocol.ts';
import { transaction } from './db.ts';
import { tombstone } from './push.ts';

const DAY_MS = 86_400_000;

/** Sets (or with null clears) a gallery's retention; creates the gallery's row if needed. */
export async function putRetention(pool: Pool, appId: string, gallery: string, days: number | null): Promise<RetentionSettings> {
  await pool.query(
    `insert into galleries (app_id, gallery, encryption, model_id, created_seq, retention_days) values ($1, $2, null, null, nextval('change_seq'), $3)
     on conflict (app_id, gallery) do update set retention_days = excluded.retention_days`,
    [appId, gallery, days],
  );
  return { gallery, retention_days: days };
}

/** Tombstones every expired template of every app; returns how many. */
export async function expireTemplates(pool: Pool): Promise<number> {
  const due = await pool.query<{ app_id: string }>(
    `select distinct g.app_id from galleries g join templates t using (app_id, gallery)
     where g.retention_days is not null and t.removed_seq is null
       and t.enrolled_at < (extract(epoch from now()) * 1000)::bigint - g.retention_days::bigint * ${DAY_MS}`,
  );
  let expired = 0;
  for (const { app_id: appId } of due.rows) {
    expired += await transaction(pool, async (db) => {
      await db.query('select pg_advisory_xact_lock(hashtext($1))', [appId]); // as a push: seqs commit in order
      const rows = await db.query<{ template_id: string; gallery: string; subject: string }>(
        `select t.template_id, t.gallery, t.subject from templates t join galleries g using (app_id, gallery)
         where t.app_id = $1 and g.retention_days is not null and t.removed_seq is null
           and t.enrolled_at < (extract(epoch from now()) * 1000)::bigint - g.retention_days::bigint * ${DAY_MS}
         order by t.enroll_seq`,
        [appId],
      );
      let last = 0;
      for (const t of rows.rows) {
        const seq = Number((await db.query<{ seq: string }>(`select nextval('change_seq') as seq`)).rows[0]!.seq);
        const removed = await tombstone(db, seq, 'app_id = $2 and template_id = $3', [appId, t.template_id]);
        await db.query(
          `insert into changes (seq, app_id, change_id, kind, gallery, subject, template_id, removed) values ($1, $2, $3, 'remove_template', $4, $5, $6, $7)`,
          [seq, appId, `retention:${t.template_id}`, t.gallery, t.subject, t.template_id, removed],
        );
        last = seq;
      }
      if (last > 0) await db.query(`select pg_notify('sync_changes', $1)`, [JSON.stringify({ app_id: appId, seq: last })]);
      return rows.rows.length;
    });
  }
  return expired;
}

/** Runs expireTemplates now and every `everyMs`; returns stop. A failed run is logged and retried next time. */
export function startRetentionJob(pool: Pool, everyMs: number): () => void {
  const run = () =>
    void expireTemplates(pool).then(
      (n) => n > 0 && console.log(`sync: retention expired ${n} template(s)`),
      (error: unknown) => console.error(`sync: retention job failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
