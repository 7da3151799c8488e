// Fair scheduling of media jobs (no DOM, no storage: unit-tested in Node).
//
//   admission   accounts (app_id) take turns; within an account, jobs start in arrival order
//   execution   up to `maxActive` jobs run at once, interleaved one step (one sampled frame)
//               at a time in turn, so a photo posted behind a long video is answered within a
//               few frames' time instead of after the whole video
//   cancel      a queued job is dropped; a running one is aborted (its signal fires) and its
//               generator is closed, which runs its `finally` blocks (closing the video)
// A job is an async generator: each `yield` ends a step; its return value is the result.

export interface QueuedJob {
  appId: string;
  id: string;
}

/** FIFO per account, round-robin across accounts. */
export class FairQueue<J extends QueuedJob> {
  private readonly queues = new Map<string, J[]>();
  /** accounts with waiting jobs, in turn order */
  private readonly turns: string[] = [];

  get size(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  has(appId: string, id: string): boolean {
    return this.queues.get(appId)?.some((j) => j.id === id) ?? false;
  }

  push(job: J): void {
    let q = this.queues.get(job.appId);
    if (!q) {
      this.queues.set(job.appId, (q = []));
      this.turns.push(job.appId);
    }
    q.push(job);
  }

  /** The next job: the head of the account whose turn it is (that account goes to the back). */
  shift(): J | undefined {
    const appId = this.turns.shift();
    if (appId === undefined) return undefined;
    const q = this.queues.get(appId)!;
    const job = q.shift()!;
    if (q.length) this.turns.push(appId);
    else this.queues.delete(appId);
    return job;
  }

  remove(appId: string, id: string): boolean {
    const q = this.queues.get(appId);
    const i = q?.findIndex((j) => j.id === id) ?? -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    if (!q.length) {
      this.queues.delete(appId);
      this.turns.splice(this.turns.indexOf(appId), 1);
    }
    return true;
  }
}

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface SchedulerOptions<J extends QueuedJob, R> {
  /** starts a job: an async generator yielding after each step and returning the result */
  run(job: J, signal: AbortSignal): AsyncGenerator<unknown, R, undefined>;
  /** a job ended (not called for cancelled jobs nor after stop()) */
  done(job: J, outcome: Outcome<R>): Promise<void> | void;
  /** jobs running at once (interleaved); default 2 */
  maxActive?: number;
}

interface Active<J, R> {
  job: J;
  controller: AbortController;
  steps: AsyncGenerator<unknown, R, undefined>;
  cancelled: boolean;
}

export class JobScheduler<J extends QueuedJob, R> {
  private readonly queue = new FairQueue<J>();
  private readonly active: Active<J, R>[] = [];
  private cursor = 0;
  private wake: (() => void) | undefined;
  private stopped = false;
  private readonly maxActive: number;
  /** resolves when the loop has exited after stop() */
  readonly finished: Promise<void>;

  constructor(private readonly options: SchedulerOptions<J, R>) {
    this.maxActive = Math.max(1, options.maxActive ?? 2);
    this.finished = this.loop();
  }

  /** Queued or running jobs. */
  get pending(): number {
    return this.queue.size + this.active.length;
  }

  isRunning(appId: string, id: string): boolean {
    return this.active.some((a) => a.job.appId === appId && a.job.id === id && !a.cancelled);
  }

  has(appId: string, id: string): boolean {
    return this.isRunning(appId, id) || this.queue.has(appId, id);
  }

  enqueue(job: J): void {
    if (this.stopped || this.has(job.appId, job.id)) return;
    this.queue.push(job);
    this.wake?.();
  }

  /** Drops a queued job or aborts a running one; false when it is neither. */
  cancel(appId: string, id: string): boolean {
    if (this.queue.remove(appId, id)) return true;
    const a = this.active.find((x) => x.job.appId === appId && x.job.id === id && !x.cancelled);
    if (!a) return false;
    a.cancelled = true;
    a.controller.abort(new DOMException('the media job was cancelled', 'AbortError'));
    return true;
  }

  /** Aborts everything and ends the loop; the jobs' stored state is the caller's business. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const a of this.active) {
      a.cancelled = true;
      a.controller.abort(new DOMException('the media service was closed', 'AbortError'));
    }
    this.wake?.();
    return this.finished;
  }

  private admit(): void {
    while (this.active.length < this.maxActive) {
      const job = this.queue.shift();
      if (!job) return;
      const controller = new AbortController();
      this.active.push({ job, controller, steps: this.options.run(job, controller.signal), cancelled: false });
    }
  }

  private remove(a: Active<J, R>): void {
    const i = this.active.indexOf(a);
    if (i >= 0) this.active.splice(i, 1);
  }

  private async loop(): Promise<void> {
    // let the constructor return before the first step
    await Promise.resolve();
    while (!this.stopped || this.active.length) {
      if (!this.stopped) this.admit();
      if (!this.active.length) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      const a = this.active[this.cursor++ % this.active.length]!;
      if (a.cancelled) {
        this.remove(a);
        await a.steps.return(undefined as R).catch(() => {});
        continue;
      }
      let step: IteratorResult<unknown, R>;
      try {
        step = await a.steps.next();
      } catch (error) {
        this.remove(a);
        if (!a.cancelled && !this.stopped) await this.report(a.job, { ok: false, error });
        continue;
      }
      if (step.done) {
        this.remove(a);
        if (!a.cancelled && !this.stopped) await this.report(a.job, { ok: true, value: step.value });
      }
    }
  }

  private async report(job: J, outcome: Outcome<R>): Promise<void> {
    try {
      await this.options.done(job, outcome);
    } catch {
      // done() must not stop the queue
    }
  }
}
