// Node-side helpers shared by the bench scripts: machine description, number formatting,
// waiting for a quiet machine, and writing a generated block between markers of a doc.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { othersShareOver } from './cpu-load.ts';

export function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'));
    if (line) return line.split(':').slice(1).join(':').trim();
  } catch {
    // not Linux: fall through
  }
  return cpus()[0]?.model ?? 'unknown CPU';
}

/** a CPU share (0..1) as a percentage */
export const pct = (share: number | undefined) => (share === undefined ? 'n/a' : `${(share * 100).toFixed(0)}%`);
/** milliseconds: one decimal below 100, none above */
export const ms = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : 'n/a');

/**
 * The machine may be shared (CI, other test runs): waits up to `seconds` until other
 * processes use at most 10% of the CPU. Returns the last share measured.
 */
export async function waitForIdle(seconds: number): Promise<number | undefined> {
  const waitUntil = Date.now() + seconds * 1000;
  let busy = await othersShareOver(1000);
  while (busy !== undefined && busy > 0.1 && Date.now() < waitUntil) {
    console.log(`other processes use ${pct(busy)} of the CPU; waiting for them to settle`);
    await new Promise((r) => setTimeout(r, 4000));
    busy = await othersShareOver(1000);
  }
  return busy;
}

/**
 * Replaces only what lies between the markers in `file`; a missing file is created from
 * `template` (which must contain both markers). A file without the markers is an error,
 * or with `appendMarkers` gets them (and the content) appended at its end.
 */
export function writeBetweenMarkers(
  file: string,
  markers: { start: string; end: string },
  content: string,
  options: { template: string; appendMarkers?: boolean },
): void {
  const { start, end } = markers;
  let current = existsSync(file) ? readFileSync(file, 'utf8') : options.template;
  if (options.appendMarkers && !current.includes(start) && !current.includes(end)) {
    current = `${current.trimEnd()}\n\n${start}\n${end}\n`;
  }
  const from = current.indexOf(start);
  const to = current.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`${file} lacks the markers ${start} … ${end}; add them where the table belongs`);
  writeFileSync(file, `${current.slice(0, from + start.length)}\n${content}\n${current.slice(to)}`);
}
