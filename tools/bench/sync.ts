// `npm run bench:sync`: the sync service under load, with faults. A durable PostgreSQL cluster
// (temporary folder), 2 service processes on it, N simulated clients (Node, speaking the
// protocol: push batches, pull after a cursor) × E enrolls and R removals each, concurrently,
// spread over both processes (a client fails over to the other, as behind a proxy). During the
// run: one service process is killed (SIGKILL) and restarted, PostgreSQL is restarted, and a
// client is killed mid-push (its request aborted in flight; a new instance resumes from its
// outbox with the same change ids). Then every client pulls to the end and its state must
// equal the database's: nothing lost, nothing duplicated. Numbers go to docs/benchmarks.md
// between the sync-bench markers.
//   --clients 50 --enrolls 200 --removes 20 --batch 5 --no-faults --no-write
//   --bootstrap 100000: a new device joining a team gallery instead (tools/bench/bootstrap.ts)
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { upsertApp } from '../../server/src/apps.ts';
import { startLocalPostgres, type LocalPostgres } from '../../server/src/local-postgres.ts';
import { migrate } from '../../server/src/migrations.ts';
import { PullResponseSchema, PushResponseSchema, type Change } from '../../src/sync/protocol.ts';
import { projectRoot } from '../harness/browser-session.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '50' },
    enrolls: { type: 'string', default: '200' },
    removes: { type: 'string', default: '20' },
    batch: { type: 'string', default: '5' },
    'no-faults': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    /** instead of the load run: a fresh browser joining a gallery of this many templates (tools/bench/bootstrap.ts) */
    bootstrap: { type: 'string' },
    /** with --bootstrap: an end-to-end encrypted gallery (printed, not written into docs/) */
    sealed: { type: 'boolean', default: false },
  },
});
const CLIENTS = Number(args.clients);
const ENROLLS = Number(args.enrolls);
const REMOVES = Number(args.removes);
const BATCH = Number(args.batch);
const FAULTS = !args['no-faults'];
const GALLERIES = ['north', 'south', 'east', 'west', 'lobby'];
const APP = { id: 'bench', key: 'bench-key-123' };
const MODEL = 'faceapi-recognition@1.7.15+flip';
const DOC = path.join(projectRoot, 'docs/benchmarks.md');
const START = '<!-- sync-bench:start -->';
const END = '<!-- sync-bench:end -->';

/** a port nothing listens on now (the OS picks it) */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

function embedding(): string {
  const bytes = Buffer.alloc(128 * 4);
  for (let i = 0; i < 128; i++) bytes.writeFloatLE(Math.random() - 0.5, i * 4);
  return bytes.toString('base64');
}

// ---- service processes ----

interface ServiceProc {
  port: number;
  child?: ChildProcess;
  /** exits nobody asked for (a crash is a failure of the run) */
  crashes?: string[];
  killing?: boolean;
}

async function spawnService(proc: ServiceProc, databaseUrl: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'server/src/main.ts')] /* one process (tsx's cli would fork a child that outlives a SIGKILL) */, {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(proc.port), HOST: '127.0.0.1', SYNC_RATE_LIMIT: '1000000', SYNC_IP_RATE_LIMIT: '1000000', SYNC_POOL_SIZE: '10' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.child = child;
  let output = '';
  child.once('exit', (code, signal) => {
    if (!proc.killing) (proc.crashes ??= []).push(`service on port ${proc.port} exited (${code ?? signal}): ${output.slice(-300)}`);
    proc.killing = false;
  });
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('sync: serving on')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`service exited (${code}): ${output.slice(-500)}`)));
  });
}

// ---- simulated clients ----

interface Stats {
  /** (highest seq of a push's reply, when the reply arrived) */
  acks: { seq: number; t: number }[];
  pushes: number;
  pushMs: number[];
  pulls: number;
  pullMs: number[];
  retries: number;
}

/** A client's durable part (what IndexedDB holds in a browser): its outbox and its pulled state. */
interface ClientState {
  id: number;
  outbox: Change[];
  cursor: string;
  alive: Map<string, string>; // template_id → gallery
  enrolled: string[];
  removed: Set<string>;
}

class Client {
  private turn: number;

  constructor(
    private readonly state: ClientState,
    private readonly ports: number[],
    private readonly stats: Stats,
    private readonly abortNextPush?: () => boolean,
  ) {
    this.turn = state.id;
  }

  private url(path: string): string {
    return `http://127.0.0.1:${this.ports[this.turn % this.ports.length]}${path}`;
  }

  private async request(path: string, init: RequestInit = {}, abortable = false): Promise<unknown> {
    for (;;) {
      const controller = new AbortController();
      try {
        const began = performance.now();
        const request = fetch(this.url(path), {
          ...init,
          headers: { app_id: APP.id, app_key: APP.key, 'content-type': 'application/json' },
          signal: controller.signal,
        });
        // the fault: this client dies with its push in flight (sent, reply never read)
        if (abortable && this.abortNextPush?.()) {
          setTimeout(() => controller.abort(new Error('client killed mid-push')), 2);
          await request.catch(() => {});
          throw new KilledMidPush();
        }
        const response = await request;
        const body = (await response.json()) as unknown;
        if (response.status === 503 || response.status === 429 || response.status === 502) throw new Error(`retry: ${response.status}`);
        if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
        (path.startsWith('/v1/push') ? this.stats.pushMs : this.stats.pullMs).push(performance.now() - began);
        return body;
      } catch (error) {
        if (error instanceof KilledMidPush) throw error;
        if (error instanceof Error && error.message.startsWith('HTTP')) throw error;
        // unreachable process, reset connection, 503 from a restarting database: next process, a moment later
        this.stats.retries++;
        this.turn++;
        await sleep(100 + Math.random() * 200);
      }
    }
  }

  async pushOutbox(): Promise<void> {
    while (this.state.outbox.length > 0) {
      const batch = this.state.outbox.slice(0, BATCH);
      const reply = PushResponseSchema.parse(await this.request('/v1/push', { method: 'POST', body: JSON.stringify({ changes: batch }) }, true));
      for (const r of reply.results) if (r.status !== 'accepted') throw new Error(`rejected: ${JSON.stringify(r)}`);
      this.stats.pushes++;
      this.stats.acks.push({ seq: Math.max(...reply.results.map((r) => (r.status === 'accepted' ? r.seq : 0))), t: performance.now() });
      this.state.outbox.splice(0, batch.length);
    }
  }

  async pull(): Promise<void> {
    for (;;) {
      const page = PullResponseSchema.parse(await this.request(`/v1/pull?after=${this.state.cursor}&limit=1000`));
      this.stats.pulls++;
      for (const c of page.changes) {
        if (c.kind === 'enroll') this.state.alive.set(c.template_id, c.gallery);
        else for (const id of c.template_ids) this.state.alive.delete(id);
      }
      this.state.cursor = page.cursor;
      if (!page.more) return;
    }
  }

  /** E enrolls and R removals of its own templates, pushed in batches, pulling in between. */
  async run(): Promise<void> {
    const s = this.state;
    let made = s.enrolled.length + s.removed.size;
    while (made < ENROLLS + REMOVES) {
      for (let i = 0; i < BATCH && made < ENROLLS + REMOVES; i++, made++) {
        // removals spread through the run, each of one of the client's earlier templates
        const removeNow = s.enrolled.length >= 10 && s.removed.size < REMOVES && (made % Math.floor((ENROLLS + REMOVES) / REMOVES) === 0 || s.enrolled.length >= ENROLLS);
        if (removeNow) {
          const victim = s.enrolled.find((id) => !s.removed.has(id))!;
          s.removed.add(victim);
          const gallery = GALLERIES[s.enrolled.indexOf(victim) % GALLERIES.length]!;
          s.outbox.push({ kind: 'remove_template', change_id: randomUUID(), gallery, subject: `c${s.id}-${s.enrolled.indexOf(victim)}`, template_id: victim });
        } else {
          const n = s.enrolled.length;
          const templateId = randomUUID();
          s.enrolled.push(templateId);
          s.outbox.push({
            kind: 'enroll',
            change_id: randomUUID(),
            gallery: GALLERIES[n % GALLERIES.length]!,
            subject: `c${s.id}-${n}`,
            template_id: templateId,
            model_id: MODEL,
            enrolled_at: String(Date.now()),
            payload: { mode: 'plain', embedding: embedding(), box: { topLeftX: 10, topLeftY: 20, width: 100, height: 120 }, quality: 0.8, attributes: { age: 30 } },
          });
        }
      }
      await this.pushOutbox();
      await this.pull();
    }
  }
}

class KilledMidPush extends Error {}

// ---- the run ----

async function main(): Promise<void> {
  const parent = mkdtempSync(path.join(tmpdir(), 'kib-bench-sync-'));
  chmodSync(parent, 0o755); // the cluster runs as the postgres user when we are root
  const pgPort = await freePort();
  let cluster: LocalPostgres | undefined;
  const services: ServiceProc[] = [{ port: await freePort() }, { port: await freePort() }];
  const faults: string[] = [];
  try {
    cluster = await startLocalPostgres(path.join(parent, 'data'), pgPort);
    const admin = new pg.Pool({ connectionString: cluster.url, max: 2 });
    admin.on('error', () => {});
    await migrate(admin);
    await upsertApp(admin, APP.id, APP.key);
    await Promise.all(services.map((s) => spawnService(s, cluster!.url)));
    const ports = services.map((s) => s.port);

    const stats: Stats = { acks: [], pushes: 0, pushMs: [], pulls: 0, pullMs: [], retries: 0 };
    const states: ClientState[] = Array.from({ length: CLIENTS }, (_, id) => ({ id, outbox: [], cursor: '0', alive: new Map(), enrolled: [], removed: new Set() }));
    const total = CLIENTS * (ENROLLS + REMOVES);
    const progress = () => states.reduce((n, s) => n + s.enrolled.length + s.removed.size - s.outbox.length, 0) / total;
    let killMidPush = FAULTS;
    const victimClient = 7 % CLIENTS;

    // a browser's view of the live nudge: one event stream on process 2, whichever process took the push
    const nudges: { seq: number; t: number }[] = [];
    const observer = new AbortController();
    const observing = (async () => {
      while (!observer.signal.aborted) {
        try {
          const response = await fetch(`http://127.0.0.1:${ports[1]}/v1/events`, { headers: { app_id: APP.id, app_key: APP.key }, signal: observer.signal });
          const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            for (const m of value.matchAll(/data: \{"seq":(\d+)\}/g)) if (Number(m[1]) > 0) nudges.push({ seq: Number(m[1]), t: performance.now() });
          }
        } catch {
          await sleep(200);
        }
      }
    })();

    const began = performance.now();
    const runs = states.map(async (state) => {
      for (;;) {
        const abort = state.id === victimClient ? () => killMidPush && progress() > 0.6 && !(killMidPush = false) : undefined;
        try {
          await new Client(state, ports, stats, abort).run();
          return;
        } catch (error) {
          if (!(error instanceof KilledMidPush)) throw error;
          faults.push(`client ${state.id} killed mid-push at ${(progress() * 100).toFixed(0)}% with ${state.outbox.length} changes in its outbox; a new instance resumed from it`);
        }
      }
    });

    const chaos = (async () => {
      if (!FAULTS) return;
      while (progress() < 0.25) await sleep(100);
      services[0]!.killing = true;
      services[0]!.child!.kill('SIGKILL');
      faults.push(`service process 1 killed (SIGKILL) at ${(progress() * 100).toFixed(0)}%`);
      await sleep(2000);
      await spawnService(services[0]!, cluster!.url);
      faults.push(`service process 1 restarted at ${(progress() * 100).toFixed(0)}%`);
      while (progress() < 0.45) await sleep(100);
      const stopAt = performance.now();
      cluster!.stop('fast');
      cluster!.start();
      faults.push(`PostgreSQL restarted (pg_ctl stop -m fast, start) at ${(progress() * 100).toFixed(0)}%, down ${((performance.now() - stopAt) / 1000).toFixed(1)} s`);
    })();

    await Promise.all([...runs, chaos]);
    const loadSeconds = (performance.now() - began) / 1000;
    await sleep(1000);
    observer.abort();
    await observing;
    // nudge latency: from a push's reply to the first nudge covering its seq on the other stream
    nudges.sort((a, b) => a.seq - b.seq);
    const nudgeMs: number[] = [];
    let missed = 0;
    for (const ack of stats.acks) {
      let lo = 0;
      let hi = nudges.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (nudges[mid]!.seq < ack.seq) lo = mid + 1;
        else hi = mid;
      }
      const nudge = nudges[lo];
      if (nudge) nudgeMs.push(Math.max(0, nudge.t - ack.t));
      else missed++;
    }
    await Promise.all(states.map((s) => new Client(s, ports, stats).pull()));

    // ---- the checks ----
    const db = (await admin.query<{ template_id: string; gallery: string }>('select template_id, gallery from templates where app_id = $1 and removed_seq is null', [APP.id])).rows;
    const dbAlive = new Map(db.map((r) => [r.template_id, r.gallery]));
    const expected = new Set(states.flatMap((s) => s.enrolled.filter((id) => !s.removed.has(id))));
    const counts = (await admin.query<{ kind: string; n: string }>('select kind, count(*) as n from changes where app_id = $1 group by kind', [APP.id])).rows;
    const enrollRows = Number(counts.find((c) => c.kind === 'enroll')?.n ?? 0);
    const removeRows = Number(counts.find((c) => c.kind === 'remove_template')?.n ?? 0);
    const templatesTotal = Number((await admin.query('select count(*) as n from templates where app_id = $1', [APP.id])).rows[0].n);
    const problems: string[] = [];
    if (dbAlive.size !== expected.size || [...expected].some((id) => !dbAlive.has(id))) problems.push(`database has ${dbAlive.size} live templates, expected ${expected.size}`);
    if (enrollRows !== CLIENTS * ENROLLS || templatesTotal !== CLIENTS * ENROLLS) problems.push(`enroll log rows ${enrollRows} / template rows ${templatesTotal}, expected ${CLIENTS * ENROLLS} each (a duplicate or a loss)`);
    if (removeRows !== CLIENTS * REMOVES) problems.push(`removal log rows ${removeRows}, expected ${CLIENTS * REMOVES}`);
    for (const s of services) problems.push(...(s.crashes ?? []));
    const differing = states.filter((s) => s.alive.size !== dbAlive.size || [...s.alive.keys()].some((id) => !dbAlive.has(id))).length;
    if (differing) problems.push(`${differing} clients' pulled state differs from the database`);

    // ---- size: what 100k templates cost in the database (tables + indexes + TOAST) ----
    await admin.query('vacuum analyze');
    const size = (await admin.query<{ bytes: string }>(`select sum(pg_total_relation_size(c.oid)) as bytes from pg_class c where c.relname in ('templates', 'changes', 'subjects', 'galleries')`)).rows[0]!.bytes;
    const perTemplate = Number(size) / templatesTotal;
    await admin.end();

    const result = {
      date: new Date().toISOString().slice(0, 10),
      cores: cpus().length,
      /** the machine's 1-minute load average at the end (others' work included) */
      load: loadavg()[0]!,
      clients: CLIENTS,
      enrolls: ENROLLS,
      removes: REMOVES,
      batch: BATCH,
      seconds: loadSeconds,
      pushes: stats.pushes,
      pushesPerSecond: stats.pushes / loadSeconds,
      changesPerSecond: total / loadSeconds,
      pushP50: percentile(stats.pushMs, 50),
      pushP95: percentile(stats.pushMs, 95),
      pulls: stats.pulls,
      pullP50: percentile(stats.pullMs, 50),
      pullP95: percentile(stats.pullMs, 95),
      retries: stats.retries,
      nudgeP50: percentile(nudgeMs, 50),
      nudgeP95: percentile(nudgeMs, 95),
      nudgesMissed: missed,
      mbPer100k: (perTemplate * 100_000) / 1e6,
      faults,
      problems,
    };
    console.log(JSON.stringify(result, null, 2));
    if (!args['no-write']) writeDoc(result);
    if (problems.length) {
      console.error(`bench:sync: FAILED: ${problems.join('; ')}`);
      process.exitCode = 1;
    } else console.log('bench:sync: every client equals the database; nothing lost, nothing duplicated');
  } finally {
    for (const s of services) {
      s.killing = true;
      s.child?.kill('SIGTERM');
    }
    await sleep(500);
    cluster?.stop('immediate');
    rmSync(parent, { recursive: true, force: true });
  }
}

function writeDoc(r: { nudgeP50: number; nudgeP95: number; nudgesMissed: number; date: string; cores: number; load: number; clients: number; enrolls: number; removes: number; batch: number; seconds: number; pushes: number; pushesPerSecond: number; changesPerSecond: number; pushP50: number; pushP95: number; pulls: number; pullP50: number; pullP95: number; retries: number; mbPer100k: number; faults: string[]; problems: string[] }): void {
  const f = (n: number, d = 0) => n.toFixed(d);
  const section = `${START}
## Sync service under load (bench:sync, ${r.date})

\`npm run bench:sync\`: one PostgreSQL 15 cluster (durable: fsync on, its own temporary folder), 2 service
processes (\`server/\`), ${r.clients} simulated clients in one Node process speaking the protocol, each making
${r.enrolls} enrolls (128-float embeddings, no photos) and ${r.removes} removals of its own templates over 5 shared
galleries, pushing ${r.batch} changes per request and pulling after every push; clients alternate between the
two processes and fail over to the other on an error, as behind a proxy. ${r.cores} cores shared with the client
simulation and other work on the machine (1-minute load average ${f(r.load, 1)} at the end), so these are
floors, not a server's capacity: every client pulls all ${r.clients * r.enrolls} templates (~${f((r.clients * r.clients * r.enrolls * 0.75) / 1000)} MB of JSON
serialised by the services and parsed by the clients in total), which is where most of the CPU goes.

| measure | value |
|---|--:|
| changes pushed (enrolls + removals) | ${r.clients * (r.enrolls + r.removes)} in ${f(r.seconds, 1)} s |
| push requests/s (${r.batch} changes each) | ${f(r.pushesPerSecond)} |
| changes/s | ${f(r.changesPerSecond)} |
| push latency p50 / p95 | ${f(r.pushP50)} / ${f(r.pushP95)} ms |
| pull latency p50 / p95 (${r.pulls} pulls, up to 1000 changes each) | ${f(r.pullP50)} / ${f(r.pullP95)} ms |
| live nudge: a push's reply → the event on the other process's stream, p50 / p95 | ${f(r.nudgeP50)} / ${f(r.nudgeP95)} ms${r.nudgesMissed ? ` (${r.nudgesMissed} pushes never nudged: LISTEN connection down during the database restart; clients pull on the reconnect nudge)` : ''} |
| requests retried (process killed, database restarting) | ${r.retries} |
| database size per 100k templates (tables, indexes, TOAST; log included) | ${f(r.mbPer100k)} MB |

Faults during the run: ${r.faults.length ? r.faults.join('; ') : 'none (--no-faults)'}.
Result: ${r.problems.length ? `**FAILED**: ${r.problems.join('; ')}` : 'every client\'s pulled state equals the database\'s live templates; the log holds exactly one enroll per template and one row per removal (no loss, no duplicate from the retried and replayed pushes).'}
${END}`;
  const doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Benchmarks\n';
  const at = doc.indexOf(START);
  const next = at >= 0 ? doc.slice(0, at) + section + doc.slice(doc.indexOf(END) + END.length) : `${doc.trimEnd()}\n\n${section}\n`;
  writeFileSync(DOC, next);
}

if (args.bootstrap !== undefined) await (await import('./bootstrap.ts')).runBootstrap(Number(args.bootstrap), !args['no-write'] && !args.sealed, args.sealed);
else await main();
