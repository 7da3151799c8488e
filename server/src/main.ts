// `npm run sync-server`: the sync service. With DATABASE_URL it serves that database; without,
// it starts (or reuses) a local PostgreSQL cluster in server/.data (port PGPORT, default 5433).
// Migrations run at start, SYNC_APPS are provisioned, then it listens on HOST:PORT.
//   npm run sync-server -- add-app <app_id> <app_key>    creates an app / replaces its key
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAppList, upsertApp } from './apps.ts';
import { buildApp } from './app.ts';
import { readConfig } from './config.ts';
import { createPool } from './db.ts';
import { startLocalPostgres, type LocalPostgres } from './local-postgres.ts';
import { migrate } from './migrations.ts';
import { NotifyHub } from './notify.ts';
import { startRetentionJob } from './retention.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const config = readConfig();
  let url = config.DATABASE_URL;
  let local: LocalPostgres | undefined;
  if (!url) {
    const port = Number(process.env.PGPORT ?? 5433);
    local = await startLocalPostgres(path.join(here, '..', '.data', 'pg'), port);
    url = local.url;
    console.log(`sync: local PostgreSQL in ${local.dir} on port ${port}${local.started ? ' (stopped again when this process ends)' : ' (already running: left as it is)'}`);
  }
  // the cluster this process started is stopped with it (one it found running is not)
  const stopLocal = () => {
    if (local?.started) local.stop('fast');
  };
  const pool = createPool(url, config.SYNC_POOL_SIZE);
  const applied = await migrate(pool);
  if (applied.length) console.log(`sync: migrations applied: ${applied.join(', ')}`);

  const [command, ...args] = process.argv.slice(2);
  if (command === 'add-app') {
    const [appId, appKey] = args;
    if (!appId || !appKey) throw new Error('usage: npm run sync-server -- add-app <app_id> <app_key>');
    await upsertApp(pool, appId, appKey);
    console.log(`sync: app ${appId} ready`);
    await pool.end();
    stopLocal();
    return;
  }
  for (const { appId, appKey } of parseAppList(config.SYNC_APPS)) await upsertApp(pool, appId, appKey);

  const readPool = config.DATABASE_READ_URL ? createPool(config.DATABASE_READ_URL, config.SYNC_POOL_SIZE) : undefined;
  const hub = new NotifyHub(url);
  await hub.start();
  const app = await buildApp({ pool, ...(readPool ? { readPool } : {}), hub, config, logger: { level: config.SYNC_LOG_LEVEL } });
  const address = await app.listen({ host: config.HOST, port: config.PORT });
  console.log(`sync: serving on ${address} (pid ${process.pid})`);
  // galleries' retention, by PostgreSQL's clock (SYNC_RETENTION_EVERY_MS, default hourly)
  const stopRetention = startRetentionJob(pool, Number(process.env.SYNC_RETENTION_EVERY_MS ?? 3_600_000));
  const shutdown = async () => {
    stopRetention();
    await app.close();
    await hub.stop();
    await pool.end();
    await readPool?.end();
    stopLocal();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(`sync: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
