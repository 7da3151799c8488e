// The sync loop: local writes → outbox → push; service log → pull → local store. One run at
// a time (a nudge during a run asks for another), push before pull (our removals go out
// before we import what they will tombstone), retries with backoff while the service is
// unreachable, and a live event stream that asks for a run whenever another browser pushed.
import type { CommittedWrite, GalleryStore } from '../store/gallery-store.ts';
import { applyPage, type Applied } from './apply.ts';
import type { SyncClient } from './client.ts';
import { changesOf, toWire } from './codec.ts';
import { SyncError, toSyncFailure } from './errors.ts';
import type { GalleryKeys } from './gallery-keys.ts';
import type { LocalChange, Outbox } from './outbox.ts';
import { sharesPhotos, type SyncOptions } from './options.ts';
import type { Change, PulledChange } from './protocol.ts';
import type { StatusFeed } from './status.ts';

const MAX_BACKOFF_MS = 30_000;

export interface ReplicatorDeps {
  options: SyncOptions;
  client: SyncClient;
  outbox: Outbox;
  keys: GalleryKeys;
  /** the sync's own store instance (its writes are not sent back) */
  applier: GalleryStore;
  /** the engine's local account */
  appId: string;
  /** the embedding model the engine searches with */
  modelId: string;
  status: StatusFeed;
}

export class Replicator {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private failures = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private poll: ReturnType<typeof setInterval> | undefined;
  private readonly stream = new AbortController();
  /** outbox writes in flight: a run waits for them so a change made just before is pushed */
  private queued: Promise<unknown> = Promise.resolve();
  private readonly onOnline = () => this.kick();
  private reconciled = false;

  constructor(private readonly deps: ReplicatorDeps) {}

  async start(): Promise<void> {
    const { outbox, status } = this.deps;
    status.update({ cursor: await outbox.cursor(), lastSyncedAt: await outbox.lastSyncedAt(), pending: await outbox.count() });
    globalThis.addEventListener?.('online', this.onOnline);
    this.poll = setInterval(() => this.kick(), this.deps.options.pollMs);
    void this.listen();
    this.kick();
  }

  /** The engine store's hook: a committed local write of a shared gallery goes to the outbox. */
  record(write: CommittedWrite): void {
    if (this.closed || write.appId !== this.deps.appId || !this.shares(write.gallery)) return;
    const changes = changesOf(write, sharesPhotos(this.deps.options, write.gallery));
    this.queued = this.queued
      .then(() => this.deps.outbox.add(changes))
      .then(async () => this.deps.status.update({ pending: await this.deps.outbox.count() }))
      .then(
        () => this.kick(),
        (error: unknown) => this.deps.status.update({ state: 'error', error: toSyncFailure(error) }),
      );
  }

  /** Runs a push + pull now (and resolves when it is done). */
  async syncNow(): Promise<void> {
    this.kick();
    while (this.running) await this.running;
  }

  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.retry);
    this.running = this.loop().finally(() => (this.running = undefined));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    clearInterval(this.poll);
    this.stream.abort();
    globalThis.removeEventListener?.('online', this.onOnline);
    this.deps.status.update({ state: 'closed', live: false });
  }

  private shares(gallery: string): boolean {
    return this.deps.options.galleries === undefined || this.deps.options.galleries.includes(gallery);
  }

  private async loop(): Promise<void> {
    const { status, outbox } = this.deps;
    do {
      this.again = false;
      try {
        await this.queued;
        status.update({ state: 'syncing' });
        if (!this.reconciled) {
          await this.reconcile();
          this.reconciled = true;
        }
        const pushHeld = await this.pushAll();
        const pullHeld = await this.pullAll();
        // reported after both: one gallery's trouble does not stop the others
        const held = pushHeld ?? pullHeld;
        if (held) throw held;

        const now = Date.now();
        await outbox.setLastSyncedAt(now);
        this.failures = 0;
        status.update({ state: 'idle', error: null, lastSyncedAt: now, pending: await outbox.count(), galleries: this.galleries() });
      } catch (error) {
        if (this.closed) return;
        const failure = toSyncFailure(error);
        this.failures++;
        status.update({ state: failure.code === 'OFFLINE' ? 'offline' : 'error', error: failure, pending: await outbox.count().catch(() => status.get().pending), galleries: this.galleries() });
        // unreachable: back off 1, 2, 4 … 30 s; a refusal (key, passphrase): try again slowly
        const wait = failure.code === 'OFFLINE' ? Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(this.failures - 1, 5)) : MAX_BACKOFF_MS;
        this.retry = setTimeout(() => this.kick(), wait);
        return;
      }
    } while (this.again && !this.closed);
  }

  private galleries(): { gallery: string; encrypted: boolean }[] {
    return this.deps.keys
      .known()
      .filter((s) => this.shares(s.gallery))
      .map((s) => ({ gallery: s.gallery, encrypted: s.encryption !== null }));
  }

  /**
   * Sends the outbox in order. A gallery that cannot be pushed now (its passphrase is wrong or
   * missing, or it is shared in clear while a passphrase is set) keeps its changes queued, in
   * order, while other galleries' go on; the failure is reported after the rest went out.
   */
  private async pushAll(): Promise<SyncError | undefined> {
    const { outbox, client, keys, status, options } = this.deps;
    const blocked = new Map<string, SyncError>();
    // read once (a week offline may have queued thousands); changes queued meanwhile go in the next run
    let queue = await outbox.peek(Number.MAX_SAFE_INTEGER);
    for (;;) {
      queue = queue.filter((e) => !blocked.has(e.change.gallery));
      const entries = queue.slice(0, options.batchSize);
      if (entries.length === 0) break;
      const sent: typeof entries = [];
      const wire: Change[] = [];
      for (const entry of entries) {
        try {
          wire.push(await toWire(entry.change, await keys.forPush(entry.change.gallery)));
          sent.push(entry);
        } catch (error) {
          if (!(error instanceof SyncError) || error.code === 'UNAUTHORIZED' || error.code === 'SERVICE') throw error;
          blocked.set(entry.change.gallery, error);
          break; // later entries may be of the same gallery: they must not overtake this one
        }
      }
      if (wire.length === 0) continue; // the first entry's gallery is blocked now: filtered out above
      const results = await client.push(wire);
      for (const r of results) {
        // DUPLICATE_TEMPLATE: the service has that template already (a re-sent one after a crash): nothing to report
        if (r.status === 'rejected' && r.error.code !== 'DUPLICATE_TEMPLATE') status.warn({ code: 'REJECTED', message: `${r.error.code}: ${r.error.message}` });
      }
      const enrolled = new Map<string, string[]>();
      for (const { change } of sent) if (change.kind === 'enroll') enrolled.set(change.gallery, [...(enrolled.get(change.gallery) ?? []), change.templateId]);
      for (const [gallery, ids] of enrolled) await outbox.markKnown(gallery, ids);
      // answered (accepted or refused): done with them; a retry after a lost reply is answered from the service's log
      await outbox.remove(sent.map((e) => e.seq));
      const done = new Set(sent.map((e) => e.seq));
      queue = queue.filter((e) => !done.has(e.seq));
      status.update({ pending: await outbox.count() });
    }
    return blocked.values().next().value;
  }

  /**
   * Pulls to the end of the log. A gallery that cannot be opened (no or a wrong passphrase)
   * is held back from the cursor where it failed while the others go on; each run first
   * catches held galleries up (with a `galleries` filter) once their key opens. Returns the
   * failure of a gallery still held, if any.
   */
  private async pullAll(): Promise<SyncError | undefined> {
    const { outbox, client, status, options } = this.deps;
    const held = await outbox.held();
    let failure: SyncError | undefined;
    for (const [gallery, from] of Object.entries(held)) {
      const stillHeld = await this.catchUp(gallery, from);
      if (stillHeld) failure ??= stillHeld;
      else delete held[gallery];
      await outbox.setHeld(held);
    }
    let cursor = await outbox.cursor();
    let next: ReturnType<typeof client.pull> | undefined;
    for (;;) {
      let page;
      try {
        page = await (next ?? client.pull(cursor, options.galleries));
      } catch (error) {
        next = undefined;
        if (!(error instanceof SyncError && error.code === 'CURSOR_AHEAD')) throw error;
        // the service lost its log (restored from a backup): everything it has is pulled again; ids keep it idempotent
        status.warn(error.failure);
        cursor = '0';
        await outbox.setCursor(cursor);
        await outbox.setHeld({});
        continue;
      }
      // the next page travels while this one is written (its cursor does not depend on the writing)
      next = page.more ? client.pull(page.cursor, options.galleries) : undefined;
      next?.catch(() => {}); // awaited next turn; a failure of this page's writing leaves it unread
      const applied = await this.apply(page.changes, new Set(Object.keys(held)));
      for (const [gallery, error] of applied.held) {
        held[gallery] = cursor; // from before this page: none of its changes of that gallery were applied
        failure ??= error;
      }
      if (applied.held.size > 0) await outbox.setHeld(held);
      cursor = page.cursor;
      await outbox.setCursor(cursor);
      status.update({ cursor });
      if (!page.more) return failure;
    }
  }

  /** Pulls one held gallery from `from`; its failure when it still cannot be opened. */
  private async catchUp(gallery: string, from: string): Promise<SyncError | undefined> {
    let after = from;
    for (;;) {
      const page = await this.deps.client.pull(after, [gallery]);
      const applied = await this.apply(page.changes, new Set());
      const error = applied.held.get(gallery);
      if (error) return error;
      after = page.cursor;
      if (!page.more) return undefined;
    }
  }

  private async apply(changes: readonly PulledChange[], held: ReadonlySet<string>): Promise<Applied> {
    const { outbox, keys, status, applier, appId, modelId } = this.deps;
    const pending: LocalChange[] = await outbox.all();
    const applied = await applyPage({ store: applier, appId, keys, modelId, pending, held, warn: (f) => status.warn(f) }, changes);
    for (const [gallery, ids] of applied.seen) await outbox.markKnown(gallery, ids);
    return applied;
  }

  /**
   * Once per start: queues every local template of a shared gallery that the service is not
   * known to have and no queued change covers — its outbox write was lost (the page died just
   * after the gallery's commit), or it was enrolled before sync was turned on. Sending one the
   * service has after all is answered DUPLICATE_TEMPLATE and changes nothing.
   */
  private async reconcile(): Promise<void> {
    const { applier, appId, outbox, options } = this.deps;
    const queued = new Set((await outbox.all()).flatMap((c) => (c.kind === 'enroll' ? [c.templateId] : [])));
    for (const gallery of (await applier.listGalleries(appId)).filter((g) => this.shares(g))) {
      const known = await outbox.known(gallery);
      const photos = sharesPhotos(options, gallery);
      const contents = await applier.readGallery(appId, gallery, { images: photos });
      const missing = contents.templates.filter((t) => !known.has(t.faceId) && !queued.has(t.faceId));
      if (missing.length === 0) continue;
      const images = await Promise.all(
        contents.images.map(async (i) => ({ subject: i.subject, imageKey: i.imageKey, bytes: await i.blob.arrayBuffer(), type: i.blob.type })),
      );
      await outbox.add(changesOf({ kind: 'added', appId, gallery, templates: missing, photos: images }, photos));
    }
    this.deps.status.update({ pending: await outbox.count() });
  }

  /** Keeps the event stream open (reconnecting with backoff); each nudge asks for a run. */
  private async listen(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      try {
        await this.deps.client.events(this.stream.signal, () => {
          failures = 0;
          this.deps.status.update({ live: true });
          this.kick();
        });
      } catch {
        // dropped or refused: the poll still runs; try again soon
      }
      if (this.closed) return;
      this.deps.status.update({ live: false });
      failures++;
      await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 6))));
    }
  }
}
