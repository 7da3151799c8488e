// Which rows of an int8 search (matrix.ts) can be in the exact answer, from each row's score
// interval [low, high] (its approximate score ± its own error bound, int8-rows.ts; once read,
// its exact score both ways). The answer is the k groups (subjects, or each row its own) whose
// best exact score is highest, at least minSimilarity. A group's best is at least the highest
// low of its rows, so the k-th best group's at least the k-th highest of those (the floor); a
// row can be in the answer only if its high reaches the floor, minSimilarity, and every low of
// its own group. Pure: the search index reads what `first` and then `rest` name, in one transaction.

export interface CandidateSetInput {
  /** the listed rows, ascending: every row that could reach the floor is among them */
  rows: readonly number[];
  /** per listed row (same order): its approximate score, error bound and group */
  scores: ArrayLike<number>;
  bounds: ArrayLike<number>;
  groups: ArrayLike<number>;
  k: number;
  minSimilarity: number;
}

export class CandidateSet {
  /** the rows that can be in the answer, ascending */
  readonly rows: number[];
  /** the least exact score a row of the answer can have, by the bounds alone */
  readonly floor: number;
  private readonly low: Float64Array;
  private readonly high: Float64Array;
  private readonly group: Int32Array;

  constructor(private readonly input: CandidateSetInput) {
    const n = input.rows.length;
    this.low = Float64Array.from({ length: n }, (_, i) => input.scores[i]! - input.bounds[i]!);
    this.high = Float64Array.from({ length: n }, (_, i) => input.scores[i]! + input.bounds[i]!);
    this.group = Int32Array.from(input.groups);
    const { floor, keep } = this.survivors();
    this.floor = floor;
    this.rows = keep.map((i) => input.rows[i]!);
  }

  /**
   * The rows to read first: every candidate of the k groups with the highest lower bounds,
   * most likely the answer's; their exact scores then raise the floor for `rest`.
   */
  first(): number[] {
    const { groupLow } = this.groupLows();
    const top = new Set([...groupLow.entries()].sort((a, b) => b[1] - a[1]).slice(0, this.input.k).map(([group]) => group));
    return this.rows.filter((row) => top.has(this.group[this.indexOf(row)]!));
  }

  /** With the exact scores of some candidates (row → score) known: the other candidates that can still be in the answer, ascending. */
  rest(exact: ReadonlyMap<number, number>): number[] {
    for (const [row, score] of exact) {
      const i = this.indexOf(row);
      this.low[i] = this.high[i] = score;
    }
    return this.survivors().keep.map((i) => this.input.rows[i]!).filter((row) => !exact.has(row));
  }

  /** the floor, and the listed rows (indices) whose high reaches it and every low of their group */
  private survivors(): { floor: number; keep: number[] } {
    const { groupLow, kth } = this.groupLows();
    const floor = Math.max(kth, this.input.minSimilarity);
    const keep: number[] = [];
    for (let i = 0; i < this.high.length; i++) if (this.high[i]! >= floor && this.high[i]! >= groupLow.get(this.group[i]!)!) keep.push(i);
    return { floor, keep };
  }

  /** per group, the highest low of its listed rows (a lower bound of its best exact score), and the k-th highest of those */
  private groupLows(): { groupLow: Map<number, number>; kth: number } {
    const groupLow = new Map<number, number>();
    for (let i = 0; i < this.low.length; i++) {
      const group = this.group[i]!;
      if (!(groupLow.get(group)! >= this.low[i]!)) groupLow.set(group, this.low[i]!);
    }
    const { k } = this.input;
    const kth = groupLow.size >= k ? [...groupLow.values()].sort((a, b) => b - a)[k - 1]! : -Infinity;
    return { groupLow, kth };
  }

  /** a listed row's index (rows are ascending) */
  private indexOf(row: number): number {
    let lo = 0;
    let hi = this.input.rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.input.rows[mid]! < row) lo = mid + 1;
      else hi = mid;
    }
    if (this.input.rows[lo] !== row) throw new RangeError(`row ${row} is not a listed candidate`);
    return lo;
  }
}
