// The cost of SYNC_GLOBAL_RATE_LIMIT (server/src/rate-limit.ts): its per-request upsert against a
// bare round trip, 16 concurrent connections, on the throwaway cluster of tools/test-postgres.sh:
//   sh tools/test-postgres.sh npx tsx tools/bench/sync-rate-limit.ts
import pg from 'pg';
import { migrate } from '../../server/src/migrations.ts';

const url = process.env.SYNC_TEST_DATABASE_URL;
if (!url) throw new Error('run through tools/test-postgres.sh');
const pool = new pg.Pool({ connectionString: url, max: 16 });
await migrate(pool);
const UPSERT = `insert into rate_windows (app_id, window_start, count) values ($1, floor(extract(epoch from now()) / 60)::bigint, 1)
  on conflict (app_id, window_start) do update set count = rate_windows.count + 1 returning count`;

async function run(name: string, sql: string, params: () => unknown[], n = 20_000, concurrency = 16): Promise<void> {
  let started = 0;
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started++ < n) {
        const t = performance.now();
        await pool.query(sql, params());
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.floor(latencies.length * q)]!.toFixed(2);
  console.log(`${name}: ${(n / seconds).toFixed(0)} queries/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`);
}

await run('select 1 (a bare round trip)', 'select 1', () => []);
await run('rate upsert, one app', UPSERT, () => ['app-1']);
await run('rate upsert, 50 apps', UPSERT, () => [`app-${Math.floor(Math.random() * 50)}`]);
await pool.end();
