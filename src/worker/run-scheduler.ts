// Model runs shared between runtimes: this worker's ONNX Runtime and, where ORT runs one thread
// (a page without COOP/COEP, WebKit), a peer worker's on the second core. Runs wait in one queue
// and each runtime takes the next one it can run as soon as it is free, so a photo's per-face
// models and detector passes spread over both without anyone planning who does what.

/** One model run, as the queue holds it. */
export interface RunJob<Out> {
  modelId: string;
  input: Float32Array<ArrayBuffer>;
  dims: readonly number[];
  resolve(out: Out): void;
  reject(error: unknown): void;
}

/** A runtime the queue hands runs to, one at a time. */
export interface RunLane<Out> {
  /** whether it can take a run of this model now (a peer: once it holds the model's session) */
  accepts(modelId: string): boolean;
  run(modelId: string, input: Float32Array<ArrayBuffer>, dims: readonly number[]): Promise<Out>;
  /**
   * Awaited after each of its runs, before it takes the next (default: none): the local runtime
   * lets the peer's messages in. A lane stays busy meanwhile, so a lane that needs no pause must
   * not have one: the runs its answer leads to are queued in that turn and would pass it by.
   */
  pause?(): Promise<void>;
}

/**
 * Lets the worker's messages in before the next local run: a local run blocks the thread until
 * it ends, and the peer's answer (its cue to take the next run) waits behind every run chained
 * in microtasks. A MessageChannel turn, not setTimeout, which is clamped to 4 ms when nested.
 */
export function yieldToMessages(): Promise<void> {
  if (typeof MessageChannel === 'undefined') return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(undefined);
  });
}

export class RunScheduler<Out> {
  private readonly queue: RunJob<Out>[] = [];
  private readonly busy = new Set<RunLane<Out>>();
  private readonly retired = new Set<RunLane<Out>>();
  private readonly answered = new Map<RunLane<Out>, number>();

  /**
   * `lanes` in order of preference for the next run when several are free (the peer first: the
   * local thread also renders every crop). A lane whose run fails is retired when `isFatal` says
   * so (a dead peer) and its run goes back to the queue for the others.
   */
  constructor(
    private readonly lanes: RunLane<Out>[],
    private readonly options: { isFatal?: (error: unknown) => boolean } = {},
  ) {}

  /** Adds a runtime ahead of the others (a peer started later); runs under way are unaffected. */
  addFirst(lane: RunLane<Out>): void {
    this.lanes.unshift(lane);
    this.pump();
  }

  /** runs each lane has answered, in the lanes' order */
  get runs(): number[] {
    return this.lanes.map((lane) => this.answered.get(lane) ?? 0);
  }

  /**
   * Queues a run; `ahead` puts it before the runs waiting (a run the rest of its answer waits
   * for, such as the last part of a model split over both runtimes).
   */
  submit(modelId: string, input: Float32Array<ArrayBuffer>, dims: readonly number[], ahead = false): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      const job = { modelId, input, dims, resolve, reject };
      if (ahead) this.queue.unshift(job);
      else this.queue.push(job);
      this.pump();
    });
  }

  /** runs waiting for a free runtime (diagnostics, tests) */
  get waiting(): number {
    return this.queue.length;
  }

  /** Hands waiting runs to free runtimes: for when what a runtime accepts has changed. */
  wake(): void {
    this.pump();
  }

  private pump(): void {
    for (const lane of this.lanes) {
      if (this.busy.has(lane) || this.retired.has(lane)) continue;
      const at = this.queue.findIndex((job) => lane.accepts(job.modelId));
      if (at < 0) continue;
      const [job] = this.queue.splice(at, 1) as [RunJob<Out>];
      this.busy.add(lane);
      void this.execute(lane, job);
    }
  }

  private async execute(lane: RunLane<Out>, job: RunJob<Out>): Promise<void> {
    try {
      job.resolve(await lane.run(job.modelId, job.input, job.dims));
      this.answered.set(lane, (this.answered.get(lane) ?? 0) + 1);
    } catch (error) {
      if (this.options.isFatal?.(error) && this.lanes.some((other) => other !== lane && !this.retired.has(other))) {
        this.retired.add(lane);
        this.queue.unshift(job);
      } else {
        job.reject(error);
      }
    }
    if (lane.pause) await lane.pause();
    this.busy.delete(lane);
    this.pump();
  }
}
