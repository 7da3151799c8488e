// The sync loop: local writes → outbox → push; service log → pull → local store. One run at
// a time (a nudge during a run asks for another), push before pull (our removals go out
// before we import what they will tombstone), retries while the service is unreachable
// (retry.ts), and a live event stream that asks for a run whenever another browser pushed. A
// stream that drops asks for a run at once, so a service that went away is reported
// (`offline`) within about a second; a run that succeeds reopens the stream at once.
import type { CommittedWrite, GalleryStore } from '../store/gallery-store.ts';
import type { OutboxRecord } from '../store/schema.ts';
import { applyPage, type Applied } from './apply.ts';
import type { SyncClient } from './client.ts';
import { changesOf, toWire } from './codec.ts';
import { SyncError, toSyncFailure } from './errors.ts';
import type { GalleryKeys } from './gallery-keys.ts';
import { outboxRecord, type LocalChange, type Outbox } from './outbox.ts';
import { sharesPhotos, type SyncOptions } from './options.ts';
import { ChangeSchema, type Change, type PulledChange } from './protocol.ts';
import { prefetchPages } from './prefetch.ts';
import { retryDelay, streamRetryDelay } from './retry.ts';
import type { StatusFeed, SyncProgress } from './status.ts';

/** pull pages fetched ahead of the one being written (each ~1 MB of JSON at most) */
const PAGES_AHEAD = 2;

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
  /** ends the event stream's wait before reopening (a run just reached the service) */
  private reopenStream: (() => void) | undefined;
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

  /**
   * The engine store's journal: the outbox records of a local write of a shared gallery,
   * committed in the write's own transaction (so a crash never separates them).
   */
  journal(write: CommittedWrite): OutboxRecord[] {
    if (this.closed || !this.syncs(write)) return [];
    return changesOf(write, sharesPhotos(this.deps.options, write.gallery)).map((change) => outboxRecord(write.appId, change));
  }

  /** After a write committed (local, or pulled by the applier): push soon; removed ids need no remembering. */
  committed(write: CommittedWrite, local: boolean): void {
    if (this.closed || !this.syncs(write)) return;
    const { outbox, status } = this.deps;
    const forgotten =
      write.kind === 'removedGallery' ? outbox.forget(write.gallery) : write.kind === 'removedTemplates' ? outbox.forget(write.gallery, write.faceIds) : Promise.resolve();
    if (!local) return void forgotten.catch(() => {});
    void forgotten
      .then(async () => status.update({ pending: await outbox.count() }))
      .then(
        () => this.kick(),
        (error: unknown) => status.update({ state: 'error', error: toSyncFailure(error) }),
      );
  }

  private syncs(write: CommittedWrite): boolean {
    return write.appId === this.deps.appId && this.shares(write.gallery);
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
    this.reopenStream?.();
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
        status.update({ state: 'syncing' });
        if (!this.reconciled) {
          await this.reconcile();
          this.reconciled = true;
        }
        await this.shareRetention();
        this.progress({ phase: 'pushing' });
        const pushHeld = await this.pushAll();
        const pullHeld = await this.pullAll();
        // reported after both: one gallery's trouble does not stop the others
        const held = pushHeld ?? pullHeld;
        if (held) throw held;

        const now = Date.now();
        await outbox.setLastSyncedAt(now);
        this.failures = 0;
        this.reopenStream?.();
        this.progress({ phase: 'idle' });
        status.update({ state: 'idle', error: null, lastSyncedAt: now, pending: await outbox.count(), galleries: this.galleries() });
      } catch (error) {
        if (this.closed) return;
        const failure = toSyncFailure(error);
        this.failures++;
        this.progress({ phase: 'idle' });
        status.update({ state: failure.code === 'OFFLINE' ? 'offline' : 'error', error: failure, pending: await outbox.count().catch(() => status.get().pending), galleries: this.galleries() });
        this.retry = setTimeout(() => this.kick(), retryDelay(this.failures, failure.code === 'OFFLINE'));
        return;
      }
    } while (this.again && !this.closed);
  }

  private progress(patch: Partial<SyncProgress>): void {
    this.deps.status.update({ progress: { ...this.deps.status.get().progress, ...patch } });
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
    let queue = await outbox.peek();
    for (;;) {
      queue = queue.filter((e) => !blocked.has(e.change.gallery));
      const entries = queue.slice(0, options.batchSize);
      if (entries.length === 0) break;
      const sent: typeof entries = [];
      const wire: Change[] = [];
      /** changes the service would refuse with the whole batch (a name with a control character, say): dropped, with a warning */
      const unsendable: typeof entries = [];
      for (const entry of entries) {
        try {
          const change = await toWire(entry.change, await keys.forPush(entry.change.gallery));
          const checked = ChangeSchema.safeParse(change);
          if (!checked.success) {
            const issue = checked.error.issues[0];
            status.warn({ code: 'REJECTED', message: `not sent: ${issue?.path.join('.')}: ${issue?.message}`, gallery: entry.change.gallery });
            unsendable.push(entry);
            continue;
          }
          wire.push(change);
          sent.push(entry);
        } catch (error) {
          if (!(error instanceof SyncError) || error.code === 'UNAUTHORIZED' || error.code === 'SERVICE') throw error;
          blocked.set(entry.change.gallery, error);
          break; // later entries may be of the same gallery: they must not overtake this one
        }
      }
      if (unsendable.length) {
        await outbox.remove(unsendable.map((e) => e.seq));
        const dropped = new Set(unsendable.map((e) => e.seq));
        queue = queue.filter((e) => !dropped.has(e.seq));
      }
      if (wire.length === 0) continue; // the first entry's gallery is blocked now: filtered out above
      const results = await client.push(wire);
      for (const r of results) {
        // DUPLICATE_TEMPLATE: the service has that template already (a re-sent one after a crash);
        // TEMPLATE_NOT_FOUND: a removal whose enroll was dropped from the outbox before it was sent: nothing to report
        if (r.status === 'rejected' && r.error.code !== 'DUPLICATE_TEMPLATE' && r.error.code !== 'TEMPLATE_NOT_FOUND') status.warn({ code: 'REJECTED', message: `${r.error.code}: ${r.error.message}` });
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
   * Tells the service each shared gallery's retention counted from enrollment, so it destroys
   * expired templates itself, also when no device comes back ('lastSeen' is the devices' to
   * enforce: the service does not know when a subject was seen). Sent once per change.
   */
  private async shareRetention(): Promise<void> {
    const { applier, appId, client, outbox } = this.deps;
    const shared = await outbox.sharedRetention();
    for (const { gallery, retention } of await applier.allGalleryOptions(appId)) {
      if (!this.shares(gallery)) continue;
      const days = retention?.from === 'enrolled' ? retention.days : null;
      if ((shared[gallery] ?? null) === days) continue;
      try {
        await client.putRetention(gallery, days);
      } catch (error) {
        // unreachable: the run fails as it would at the push; refused (an older service without the route): said, not fatal
        if (error instanceof SyncError && error.code === 'OFFLINE') throw error;
        this.deps.status.warn({ code: 'REJECTED', gallery, message: `${gallery}: the service did not take its retention: ${toSyncFailure(error).message}` });
        continue;
      }
      shared[gallery] = days;
      await outbox.setSharedRetention(shared);
    }
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
    const pages = (from: string) => prefetchPages((after) => client.pull(after, options.galleries), from, PAGES_AHEAD);
    let feed = pages(cursor);
    let pulled = 0;
    this.progress({ phase: 'pulling', pulled, total: null });
    for (;;) {
      let page;
      try {
        page = await feed.next();
      } catch (error) {
        if (!(error instanceof SyncError && error.code === 'CURSOR_AHEAD')) throw error;
        // the service lost its log (restored from a backup): everything it has is pulled again; ids keep it idempotent
        status.warn(error.failure);
        cursor = '0';
        pulled = 0;
        await outbox.setCursor(cursor);
        await outbox.setHeld({});
        feed = pages(cursor);
        continue;
      }
      const applied = await this.apply(page.changes, new Set(Object.keys(held)));
      for (const [gallery, error] of applied.held) {
        held[gallery] = cursor; // from before this page: none of its changes of that gallery were applied
        failure ??= error;
      }
      if (applied.held.size > 0) await outbox.setHeld(held);
      cursor = page.cursor;
      await outbox.setCursor(cursor);
      pulled += page.changes.length;
      status.update({ cursor, progress: { phase: 'pulling', pulled, total: page.remaining === undefined ? null : pulled + page.remaining } });
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
      // ids no longer here need no remembering (a removal's cleanup a crash cut short)
      const local = new Set(contents.templates.map((t) => t.faceId));
      const stale = [...known].filter((id) => !local.has(id));
      if (stale.length > 0) await outbox.forget(gallery, stale);
      const missing = contents.templates.filter((t) => !known.has(t.faceId) && !queued.has(t.faceId));
      if (missing.length === 0) continue;
      const images = await Promise.all(
        contents.images.map(async (i) => ({ subject: i.subject, imageKey: i.imageKey, bytes: await i.blob.arrayBuffer(), type: i.blob.type })),
      );
      await outbox.add(appId, changesOf({ kind: 'added', appId, gallery, templates: missing, photos: images }, photos));
    }
    this.deps.status.update({ pending: await outbox.count() });
  }

  /**
   * Keeps the event stream open; each nudge asks for a run. When an open stream drops, a run
   * is asked for at once: if the service is gone it fails and says `offline` now, not at the
   * next poll, and its retries (every second at first) find the service's return; the first
   * run that succeeds reopens the stream. Meanwhile the stream itself retries only slowly.
   */
  private async listen(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      let opened = false;
      try {
        await this.deps.client.events(this.stream.signal, () => {
          opened = true;
          failures = 0;
          this.deps.status.update({ live: true });
          this.kick();
        });
      } catch {
        // dropped or refused: the runs find out whether the service is there
      }
      if (this.closed) return;
      this.deps.status.update({ live: false });
      if (opened) this.kick();
      failures++;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, streamRetryDelay(failures));
        this.reopenStream = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.reopenStream = undefined;
    }
  }
}
