// How much CPU *other* processes take, so timings from a shared machine (CI, parallel test
// runs) show their noise. Linux /proc only; elsewhere every function returns undefined.
import { readFileSync, readdirSync } from 'node:fs';

export interface CpuSnapshot {
  /** all CPUs, in clock ticks: busy (non-idle) and total */
  busy: number;
  total: number;
  /** user+system ticks of `root` and its live descendants, plus those of descendants they reaped */
  own: number;
}

function systemTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3]! - (fields[4] ?? 0), total }; // idle + iowait
}

function processTreeTicks(root: number): number {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // fields after "(comm)": state ppid ... utime(14th) stime(15th) cutime(16th) cstime(17th)
      // counted from pid. cutime/cstime hold reaped children's ticks, so a descendant that
      // exits between snapshots (a closed browser context's renderer) still counts as ours.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(rest[1]));
      ticks.set(Number(name), Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]));
    } catch {
      // exited meanwhile
    }
  }
  let sum = 0;
  for (const [pid, t] of ticks) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        sum += t;
        break;
      }
    }
  }
  return sum;
}

export function cpuSnapshot(root = process.pid): CpuSnapshot | undefined {
  try {
    return { ...systemTicks(), own: processTreeTicks(root) };
  } catch {
    return undefined;
  }
}

/** Share (0..1) of all CPU time between the snapshots that went to processes outside root's tree. */
export function othersShare(a: CpuSnapshot | undefined, b: CpuSnapshot | undefined): number | undefined {
  if (!a || !b || b.total <= a.total) return undefined;
  return Math.max(0, (b.busy - a.busy - (b.own - a.own)) / (b.total - a.total));
}

/** Share of CPU other processes use over `ms` (before a run: is the machine quiet?). */
export async function othersShareOver(ms: number): Promise<number | undefined> {
  const a = cpuSnapshot();
  await new Promise((r) => setTimeout(r, ms));
  return othersShare(a, cpuSnapshot());
}
