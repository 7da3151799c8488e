// The live nudge: one LISTEN connection per process receives every commit's NOTIFY
// ('sync_changes', {app_id, seq}) and writes an SSE event to that app's open streams, so a
// browser pulls within a second of another's push, whichever process served it. Nudges carry
// no data (clients pull); a missed one only delays, and after the LISTEN connection comes
// back (a PostgreSQL restart) every stream gets one, since notifications in between are lost.
import pg from 'pg';

export type Nudge = (seq: number) => void;

export class NotifyHub {
  private readonly streams = new Map<string, Set<Nudge>>();
  private client: pg.Client | undefined;
  private stopped = false;
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly connectionString: string) {}

  async start(): Promise<void> {
    await this.connect(false);
  }

  subscribe(appId: string, nudge: Nudge): () => void {
    const own = this.streams.get(appId) ?? new Set<Nudge>();
    own.add(nudge);
    this.streams.set(appId, own);
    return () => {
      own.delete(nudge);
      if (own.size === 0) this.streams.delete(appId);
    };
  }

  /** open streams of one app in this process */
  count(appId: string): number {
    return this.streams.get(appId)?.size ?? 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    await this.client?.end().catch(() => {});
  }

  private async connect(reconnecting: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5_000 });
    client.on('notification', (message) => this.deliver(message.payload));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query('listen sync_changes');
    } catch (error) {
      // not awaited: a connection refused while the server starts up may never end cleanly,
      // and waiting for it stopped the retries (measured: nudges never came back after a restart)
      void client.end().catch(() => {});
      if (!reconnecting) throw error;
      this.retryLater();
      return;
    }
    if (this.stopped) {
      void client.end().catch(() => {});
      return;
    }
    this.client = client;
    if (reconnecting) for (const own of this.streams.values()) for (const nudge of own) nudge(0);
  }

  /** The listening connection broke: connect again (events of failed attempts are not ours to act on). */
  private lost(client: pg.Client): void {
    if (this.stopped || client !== this.client) return;
    this.client = undefined;
    this.retryLater();
  }

  private retryLater(): void {
    if (this.stopped || this.retry !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect(true);
    }, 500);
  }

  private deliver(payload: string | undefined): void {
    try {
      const { app_id, seq } = JSON.parse(payload ?? '') as { app_id: string; seq: number };
      for (const nudge of this.streams.get(app_id) ?? []) nudge(seq);
    } catch {
      // not ours: ignore
    }
  }
}
