// Verification metrics over scored pairs (pure). A failed pair (no face found) scores -Infinity:
// a miss for a genuine pair, a correct rejection for an impostor pair.

export interface ScoredPair {
  score: number;
  genuine: boolean;
}

/** ROC AUC by the Mann-Whitney statistic (ties count half). */
export function rocAuc(pairs: readonly ScoredPair[]): number {
  const sorted = [...pairs].sort((a, b) => a.score - b.score);
  let rankSum = 0;
  let genuine = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j]!.score === sorted[i]!.score) j++;
    const avgRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k]!.genuine) {
      rankSum += avgRank;
      genuine++;
    }
    i = j;
  }
  const impostor = sorted.length - genuine;
  return (rankSum - (genuine * (genuine + 1)) / 2) / (genuine * impostor);
}

/** The lowest threshold whose false accept rate (impostors with score ≥ t) is at most `far`. */
export function thresholdAtFar(pairs: readonly ScoredPair[], far: number): number {
  const impostors = pairs.filter((p) => !p.genuine).map((p) => p.score).sort((a, b) => b - a);
  const allowed = Math.floor(far * impostors.length);
  // accept strictly above the (allowed)-th highest impostor score
  const bound = impostors[allowed];
  return bound === undefined ? -Infinity : nextUp(bound);
}

function nextUp(v: number): number {
  return v + Math.max(1e-9, Math.abs(v) * 1e-9);
}

export function tarAt(pairs: readonly ScoredPair[], threshold: number): number {
  const genuine = pairs.filter((p) => p.genuine);
  return genuine.filter((p) => p.score >= threshold).length / genuine.length;
}

export function farAt(pairs: readonly ScoredPair[], threshold: number): number {
  const impostors = pairs.filter((p) => !p.genuine);
  return impostors.filter((p) => p.score >= threshold).length / impostors.length;
}

/** Best accuracy over all thresholds (pairs weighted equally). */
export function bestAccuracy(pairs: readonly ScoredPair[]): { accuracy: number; threshold: number } {
  const sorted = [...pairs].sort((a, b) => b.score - a.score);
  const totalImpostors = sorted.filter((p) => !p.genuine).length;
  let tp = 0;
  let fp = 0;
  let best = { accuracy: totalImpostors / sorted.length, threshold: Infinity };
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]!.genuine) tp++;
    else fp++;
    if (i + 1 < sorted.length && sorted[i + 1]!.score === sorted[i]!.score) continue;
    const accuracy = (tp + (totalImpostors - fp)) / sorted.length;
    if (accuracy > best.accuracy) best = { accuracy, threshold: sorted[i]!.score };
  }
  return best;
}

export function quantile(values: readonly number[], q: number): number {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (pos - lo);
}
