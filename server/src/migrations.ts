// The database schema as ordered migrations, run at every start. Several service processes
// may start at once: a transaction-scoped advisory lock makes them take turns, and each
// migration runs in the same transaction as its row in schema_migrations, so a step is
// applied exactly once or not at all. Shipped steps are never edited; add a new one.
import type { Pool } from 'pg';
import { transaction } from './db.ts';

/** pg_advisory_xact_lock key of the migration step ("kibsync" in ASCII) */
const MIGRATION_LOCK = 0x6b696273796e63;

export const MIGRATIONS: readonly { id: number; name: string; sql: string }[] = [
  {
    id: 1,
    name: 'apps, galleries, subjects, templates, change log',
    sql: `
      create table apps (
        app_id text primary key,
        -- scrypt(app_key, key_salt); the key itself is never stored
        key_hash bytea not null,
        key_salt bytea not null,
        created_at timestamptz not null default now()
      );
      -- one sequence for every app: a change's seq orders it (docs/sync.md, the conflict rule)
      create sequence change_seq;
      create table galleries (
        app_id text not null references apps on delete cascade,
        gallery text not null,
        -- null: templates in clear; else PBKDF2 salt, iterations and a check value (never a key)
        encryption jsonb,
        -- the embedding model of its templates: a template of another is refused
        model_id text,
        created_seq bigint not null,
        primary key (app_id, gallery)
      );
      -- a subject exists while it has live templates (in a sealed gallery: its keyed hash)
      create table subjects (
        app_id text not null,
        gallery text not null,
        subject text not null,
        live_templates integer not null default 0,
        primary key (app_id, gallery, subject),
        foreign key (app_id, gallery) references galleries on delete cascade
      );
      create table templates (
        app_id text not null,
        template_id text not null,
        gallery text not null,
        subject text not null,
        model_id text not null,
        enrolled_at bigint not null,
        -- clear galleries: float32 little-endian embedding, box, quality, attributes, optional photo
        embedding bytea,
        box jsonb,
        quality real,
        attributes jsonb,
        photo bytea,
        photo_type text,
        -- sealed galleries: AES-GCM of all of the above, nothing in clear
        sealed bytea,
        enroll_seq bigint not null,
        -- tombstone: set by a removal; the biometric columns are then emptied
        removed_seq bigint,
        primary key (app_id, template_id),
        foreign key (app_id, gallery) references galleries on delete cascade
      );
      create index templates_live_by_subject on templates (app_id, gallery, subject) where removed_seq is null;
      -- append-only: one row per accepted change, in seq order
      create table changes (
        seq bigint primary key,
        app_id text not null references apps on delete cascade,
        change_id text not null,
        kind text not null check (kind in ('enroll', 'remove_template', 'remove_subject', 'remove_gallery')),
        gallery text not null,
        subject text,
        template_id text,
        -- removals: the template ids they tombstoned
        removed text[],
        received_at timestamptz not null default now(),
        unique (app_id, change_id)
      );
      create index changes_by_app on changes (app_id, seq);
    `,
  },
  {
    id: 2,
    name: 'rate limit windows (SYNC_GLOBAL_RATE_LIMIT)',
    // unlogged: counters need no WAL and no crash safety (a crash forgets a minute's counts)
    sql: `
      create unlogged table rate_windows (
        app_id text not null,
        -- minutes since the epoch, by PostgreSQL's clock: every process counts in the same window
        window_start bigint not null,
        count bigint not null,
        primary key (app_id, window_start)
      );
    `,
  },
  {
    id: 3,
    name: 'gallery retention',
    sql: `
      -- the service destroys templates enrolled more than retention_days ago itself (retention.ts),
      -- with PostgreSQL's now() as the clock: also for devices that never come back
      alter table galleries add column retention_days integer check (retention_days between 1 and 36500);
    `,
  },
];

export async function migrate(pool: Pool): Promise<number[]> {
  // one transaction: the lock, every missing step and its row commit together or not at all
  return transaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('create table if not exists schema_migrations (id integer primary key, name text not null, applied_at timestamptz not null default now())');
    const done = new Set((await client.query<{ id: number }>('select id from schema_migrations')).rows.map((r) => r.id));
    const applied: number[] = [];
    for (const step of MIGRATIONS) {
      if (done.has(step.id)) continue;
      await client.query(step.sql);
      await client.query('insert into schema_migrations (id, name) values ($1, $2)', [step.id, step.name]);
      applied.push(step.id);
    }
    return applied;
  });
}
