// A service process survives a PostgreSQL restart under it: requests in flight fail with a
// 503 body (never a crash), the next ones succeed, and live nudges resume on a stream opened
// before the restart. Its own cluster, since the shared one can't be restarted. A request that
// fails at the socket (status 0) means the service process died: about 1 run in 4 did, when a new
// connection's ReadyForQuery and PostgreSQL's FATAL shutdown message came in one read (db.ts).
// Every 5xx is in the process's log with the request id its reply names.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { upsertApp } from '../../server/src/apps.ts';
import { startLocalPostgres, type LocalPostgres } from '../../server/src/local-postgres.ts';
import { migrate } from '../../server/src/migrations.ts';
import { PushResponseSchema } from '../../src/sync/protocol.ts';
import { headers, spawnService, type ServiceProcess } from './helpers/service.ts';
import { enroll } from './helpers/templates.ts';

const APP = { id: 'restart-app', key: 'restart-app-key' };
let parent: string;
let cluster: LocalPostgres;
let service: ServiceProcess;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  parent = mkdtempSync(path.join(tmpdir(), 'kib-restart-'));
  chmodSync(parent, 0o755);
  cluster = await startLocalPostgres(path.join(parent, 'data'), await freePort());
  const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
  await migrate(pool);
  await upsertApp(pool, APP.id, APP.key);
  await pool.end();
  service = await spawnService(cluster.url, await freePort());
});

afterAll(async () => {
  await service?.stop();
  cluster?.stop('immediate');
  rmSync(parent, { recursive: true, force: true });
});

const push = (gallery: string) =>
  fetch(`${service.url}/v1/push`, { method: 'POST', headers: headers(APP.id, APP.key), body: JSON.stringify({ changes: [enroll(gallery, 'alice')] }) });

it('survives a PostgreSQL restart: 503 bodies meanwhile, then pushes and nudges as before', async () => {
  const controller = new AbortController();
  const stream = await fetch(`${service.url}/v1/events`, { headers: headers(APP.id, APP.key), signal: controller.signal });
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const readUntil = async (pattern: RegExp, ms: number) => {
    const deadline = Date.now() + ms;
    while (!pattern.test(text)) {
      const chunk = await Promise.race([reader.read(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms: ${text}`)), Math.max(1, deadline - Date.now())))]);
      if (chunk.done) throw new Error('stream ended');
      text += chunk.value;
    }
  };
  await readUntil(/: ready/, 5000);
  expect((await push('before')).status).toBe(200);

  // pushes in flight when the database goes: their connections are checked out of the pool
  const inflight = Array.from({ length: 30 }, () => push('load').then((r) => r.status, () => 0));
  await new Promise((r) => setTimeout(r, 30));
  cluster.stop('fast');
  const statuses = await Promise.all(inflight);
  expect(service.child.exitCode, 'the service process died').toBeNull();
  for (const status of statuses) expect([200, 503]).toContain(status);
  const during = await push('during');
  expect(during.status).toBe(503);
  // every 5xx is logged with the request id its reply carries (header and body)
  const id = during.headers.get('x-request-id');
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(await during.json()).toMatchObject({ error: { code: 'DATABASE_UNAVAILABLE', request_id: id } });
  await expect.poll(() => service.output().split('\n').find((line) => line.includes(id!)), { timeout: 2000 }).toMatch(/"level":50.*"status":503/);
  cluster.start();
  // the listening connection is back: the stream gets a catch-up nudge (seq 0: pull, something may have been missed)
  await readUntil(/"seq":0\b/, 15_000);

  // the first requests after may still meet broken pooled connections: retried as a client does
  let after: Response | undefined;
  for (let i = 0; i < 20 && after?.status !== 200; i++) {
    after = await push('after');
    if (after.status !== 200) await new Promise((r) => setTimeout(r, 250));
  }
  expect(after?.status).toBe(200);
  const seq = PushResponseSchema.parse(await after!.json()).results[0]!;
  expect(service.child.exitCode).toBeNull();
  // the stream opened before the restart still nudges, for the push after it
  await readUntil(new RegExp(`"seq":${seq.status === 'accepted' ? seq.seq : -1}\\b`), 10_000);
  controller.abort();
});
