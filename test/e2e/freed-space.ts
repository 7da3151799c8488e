// Chromium gives back the space of deleted IndexedDB records lazily: a removed gallery's or a
// rolled-back import's bytes count against the quota until its database has let go of them
// (at once on a quiet machine, seconds later under load), and the quota manager's cached usage,
// which refuses writes, may lag the estimate a little more. A test that frees space and then
// writes waits for both, bounded, instead of hoping the write comes late enough.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `usage` until it is at most `target` bytes or `withinMs` have passed; the last usage read. */
export async function usageDownTo(usage: () => Promise<number>, target: number, withinMs = 60_000): Promise<number> {
  const until = Date.now() + withinMs;
  let now = await usage();
  while (now > target && Date.now() < until) {
    await sleep(500);
    now = await usage();
  }
  return now;
}

/**
 * `write` again, one second apart, while `refused` says it was turned away for lack of space (at
 * most `tries` writes); `afterRefusal` checks what each refused write must have left unchanged.
 */
export async function writeOnceFreed<T>(write: () => Promise<T>, refused: (outcome: T) => boolean, afterRefusal: () => Promise<void> = async () => {}, tries = 10): Promise<T> {
  let outcome = await write();
  for (let attempt = 1; refused(outcome) && attempt < tries; attempt++) {
    await afterRefusal();
    await sleep(1000);
    outcome = await write();
  }
  return outcome;
}
