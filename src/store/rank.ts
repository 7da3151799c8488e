// Ranking over a score array (pure): the k best entries, and the best entry per group (per
// subject). Both run once per search over every row, so they use typed arrays allocated per
// call, never per row.

/** The k highest scores offered, kept in a binary min-heap (the root is the one to beat). */
export class TopK {
  private readonly scores: Float64Array;
  private readonly ids: Int32Array;
  private count = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(Math.max(0, k));
    this.ids = new Int32Array(Math.max(0, k));
  }

  /** The score an offer must exceed to get in (-Infinity until k are held). */
  get floor(): number {
    return this.count < this.k ? -Infinity : this.scores[0]!;
  }

  offer(score: number, id: number): void {
    const { scores, ids } = this;
    if (this.count < this.k) {
      // sift up from the end
      let i = this.count++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (scores[parent]! <= score) break;
        scores[i] = scores[parent]!;
        ids[i] = ids[parent]!;
        i = parent;
      }
      scores[i] = score;
      ids[i] = id;
    } else if (this.count > 0 && score > scores[0]!) {
      // replace the root, sift down
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= this.count) break;
        if (child + 1 < this.count && scores[child + 1]! < scores[child]!) child++;
        if (scores[child]! >= score) break;
        scores[i] = scores[child]!;
        ids[i] = ids[child]!;
        i = child;
      }
      scores[i] = score;
      ids[i] = id;
    }
  }

  /** What is held, best first (ties: lower id first). */
  sorted(): { id: number; score: number }[] {
    const out: { id: number; score: number }[] = [];
    for (let i = 0; i < this.count; i++) out.push({ id: this.ids[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.id - b.id);
  }
}

/**
 * The ids of the k highest of scores[0, n) that are at least `min`, best first. NaN never
 * qualifies. Among equal scores at the cut, earlier ids win.
 */
export function topK(scores: ArrayLike<number>, n: number, k: number, min = -Infinity): { id: number; score: number }[] {
  const top = new TopK(Math.min(k, n));
  if (top.k <= 0) return [];
  for (let i = 0; i < n; i++) {
    const s = scores[i]!;
    if (s >= min && s > top.floor) top.offer(s, i);
  }
  return top.sorted();
}

/**
 * Per group g: best[g] = the highest scores[i] with groups[i] = g, bestIndex[g] = that i, or
 * -Infinity and -1 for groups without entries. `best` and `bestIndex` must hold every group.
 */
export function bestPerGroup(
  scores: ArrayLike<number>,
  groups: ArrayLike<number>,
  n: number,
  best: Float32Array | Float64Array,
  bestIndex: Int32Array,
): void {
  best.fill(-Infinity);
  bestIndex.fill(-1);
  for (let i = 0; i < n; i++) {
    const g = groups[i]!;
    const s = scores[i]!;
    if (s > best[g]!) {
      best[g] = s;
      bestIndex[g] = i;
    }
  }
}
