// The connection pool. A PostgreSQL restart breaks pooled connections: pg reports that as an
// 'error' event on idle clients, which would crash the process if nobody listened; we log it
// and let the pool open fresh connections on the next request (requests in flight fail with
// DATABASE_UNAVAILABLE and clients retry — pushes are idempotent).
import pg from 'pg';

export function createPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
  pool.on('error', (error) => console.error(`sync: idle database connection lost (${error.message})`));
  // PostgreSQL shutting down can send a new connection's ReadyForQuery and its FATAL 57P01 in one
  // read: the error is emitted after the pool handed the client out but before `transaction` (an
  // await later) listens — unhandled, it ended the process (restart.test.ts, about 1 run in 4).
  // Every client listens from birth; the query in flight still rejects, and `transaction` drops
  // the connection.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs `work` in one transaction on one connection, rolling back on any failure. */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // a checked-out client has no listener of the pool's: its 'error' (PostgreSQL restarting
  // under it) would be unhandled and end the process — measured in bench:sync. The query in
  // flight rejects anyway; the client is then not given back to the pool.
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    // a connection that failed mid-transaction is not given back to the pool
    client.removeListener('error', onError);
    client.release(broken);
  }
}
