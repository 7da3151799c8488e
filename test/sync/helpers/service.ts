// Test worlds for the sync service: a fresh database per test file (created on the
// throwaway cluster of tools/test-postgres.sh), real service instances on it — in this
// process (buildApp on an ephemeral port) or as separate `tsx server/src/main.ts` processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../../server/src/app.ts';
import { upsertApp } from '../../../server/src/apps.ts';
import { ConfigSchema } from '../../../server/src/config.ts';
import { createPool } from '../../../server/src/db.ts';
import { migrate } from '../../../server/src/migrations.ts';
import { NotifyHub } from '../../../server/src/notify.ts';

export const ROOT = path.resolve(import.meta.dirname, '../../..');

export async function freshDatabase(): Promise<string> {
  const base = process.env.SYNC_TEST_DATABASE_URL;
  if (!base) throw new Error('SYNC_TEST_DATABASE_URL is not set (tools/test-postgres.sh)');
  const name = `sync_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.href;
}

export interface Service {
  url: string;
  pool: pg.Pool;
  close(): Promise<void>;
}

/** A service instance in this process on `databaseUrl` (migrated, apps provisioned). */
export async function startService(databaseUrl: string, options: { apps?: Record<string, string>; env?: Record<string, string> } = {}): Promise<Service> {
  const config = ConfigSchema.parse({ ...options.env });
  const pool = createPool(databaseUrl, 5);
  await migrate(pool);
  for (const [appId, appKey] of Object.entries(options.apps ?? {})) await upsertApp(pool, appId, appKey);
  const hub = new NotifyHub(databaseUrl);
  await hub.start();
  const app: FastifyInstance = await buildApp({ pool, hub, config });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: address,
    pool,
    close: async () => {
      await app.close();
      await hub.stop();
      await pool.end();
    },
  };
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** everything it printed so far (its log) */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** `tsx server/src/main.ts` as its own process on `port`; resolves once it serves. */
export async function spawnService(databaseUrl: string, port: number, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/src/main.ts')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('sync: serving on')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`sync service exited (${code}): ${output}`)));
  });
  await ready;
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

export function headers(appId: string, appKey: string): Record<string, string> {
  return { app_id: appId, app_key: appKey, 'content-type': 'application/json' };
}
