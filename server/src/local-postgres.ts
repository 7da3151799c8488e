// A local PostgreSQL cluster for development, tests and the bench: initdb into a folder,
// pg_ctl start on a port, a database "sync". Debian's server binaries refuse to run as root,
// so as root every command runs as the "postgres" system user (runuser) and the folder is
// given to it. Trust authentication, listening on 127.0.0.1 only: never for production
// (docs/sync.md says how to run for real).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface LocalPostgres {
  url: string;
  dir: string;
  port: number;
  /** whether this call started the cluster (false: it was already running) */
  started: boolean;
  stop(mode?: 'fast' | 'immediate'): void;
  start(): boolean;
}

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions[0]) return path.join(root, versions[0], 'bin');
  throw new Error('PostgreSQL server binaries not found: apt-get install -y postgresql, or set PG_BIN or DATABASE_URL');
}

const asRoot = process.getuid?.() === 0;

function run(bin: string, args: string[]): string {
  const file = path.join(binDir(), bin);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export async function startLocalPostgres(dir: string, port: number): Promise<LocalPostgres> {
  const data = path.resolve(dir);
  mkdirSync(data, { recursive: true });
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', data]);
  if (!existsSync(path.join(data, 'PG_VERSION'))) {
    run('initdb', ['-D', data, '-U', 'sync', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
  }
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${data} -c max_connections=200 -c fsync=on`;
  const start = (): boolean => {
    try {
      run('pg_ctl', ['-D', data, 'status']);
      return false; // already running (another `npm run sync-server` uses it)
    } catch {
      run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(data, 'server.log'), '-w', '-t', '60', 'start']);
      return true;
    }
  };
  const started = start();
  const admin = new pg.Client({ connectionString: `postgres://sync@127.0.0.1:${port}/postgres` });
  await admin.connect();
  try {
    const exists = await admin.query(`select 1 from pg_database where datname = 'sync'`);
    if (!exists.rowCount) await admin.query('create database sync');
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://sync@127.0.0.1:${port}/sync`,
    dir: data,
    port,
    started,
    start,
    stop: (mode = 'fast') => {
      try {
        run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      } catch {
        // already stopped
      }
    },
  };
}
