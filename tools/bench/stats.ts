// Summary statistics for bench samples (pure: runs in Node and in the bench pages).

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  min: number;
  max: number;
  mean: number;
}

/** nearest-rank percentile of ascending `sorted` (with fewer than 20 samples, p95 is the maximum) */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** NaN everywhere for no samples, so a missing stage renders as "n/a" rather than throwing. */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) return { n: 0, p50: Number.NaN, p95: Number.NaN, min: Number.NaN, max: Number.NaN, mean: Number.NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    mean: samples.reduce((sum, t) => sum + t, 0) / samples.length,
  };
}

/** The median of a few values (e.g. repeated cold starts), lower middle for even counts. */
export function median(values: readonly number[]): number {
  return values.length ? percentile([...values].sort((a, b) => a - b), 50) : Number.NaN;
}
