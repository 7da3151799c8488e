// The side-by-side bench's ratio tables (pure): from the measured calls of each configuration
// (COOP/COEP with 2 threads, none with 1) to the work rows — the single face, the group photos,
// each size band — and the engine / human and engine / face-api ratios, with the decode counted
// (the primary numbers) and without it.
import type { Call } from './pages/peers.ts';
import { PEERS, SINGLE_ID, bandTotals, engineRatios, perImageMedians, sumOfMedians, type BandTotal, type BenchImage, type Peer, type Samples } from './peers-data.ts';

/** which time of a call: all of it (decode counted) or without its decode */
export type Timing = 'withDecode' | 'withoutDecode';

/** one call's ms in `timing` (NaN without a measured decode) */
export const callMs = (c: Call, timing: Timing): number => (timing === 'withDecode' ? c.ms : c.ms - (Number.isFinite(c.decodeMs) ? c.decodeMs : Number.NaN));

export function samplesOf(calls: readonly Call[], pick: (c: Call) => number): Samples {
  const out = Object.fromEntries(PEERS.map((p) => [p, {} as Record<string, number[]>])) as Samples;
  for (const c of calls) (out[c.peer][c.id] ??= []).push(pick(c));
  return out;
}

/** The warm work rows of one configuration: each a time per peer (medians per photo; sums over a set). */
export interface WarmTimes {
  single: Record<Peer, number>;
  /** the group photos' sum; undefined without group photos */
  groups?: { images: number; sums: Record<Peer, number> };
  /** every band, empty ones too (images 0) */
  bands: BandTotal[];
}

export function warmTimes(images: readonly BenchImage[], calls: readonly Call[], timing: Timing): WarmTimes {
  const medians = perImageMedians(
    samplesOf(calls, (c) => callMs(c, timing)),
    [SINGLE_ID, ...images.map((i) => i.path)],
  );
  const groups = images.filter((i) => i.set === 'groups').map((i) => i.path);
  return {
    single: Object.fromEntries(PEERS.map((p) => [p, medians[p][SINGLE_ID]!])) as Record<Peer, number>,
    ...(groups.length ? { groups: { images: groups.length, sums: sumOfMedians(medians, groups) } } : {}),
    bands: bandTotals(images, medians),
  };
}

/** One configuration's rows for the ratio table: warm work, and cold starts where measured. */
export interface ConfigTimes {
  /** e.g. "COOP/COEP, 2 threads" */
  label: string;
  warm: WarmTimes;
  cold?: { small: Record<Peer, number>; large: Record<Peer, number> };
}

export interface RatioColumn {
  heading: string;
  pick: (t: ConfigTimes) => Record<Peer, number> | undefined;
}

/** The columns a set of configurations has data for: single, groups, each non-empty band, cold starts. */
export function ratioColumns(configs: readonly ConfigTimes[]): RatioColumn[] {
  const first = configs[0];
  if (!first) return [];
  const columns: RatioColumn[] = [{ heading: 'single 640×480', pick: (t) => t.warm.single }];
  if (first.warm.groups) columns.push({ heading: `${first.warm.groups.images} groups`, pick: (t) => t.warm.groups?.sums });
  for (const [k, b] of first.warm.bands.entries()) {
    if (b.images) columns.push({ heading: `${b.label} (${b.images})`, pick: (t) => t.warm.bands[k]?.sums });
  }
  if (configs.some((c) => c.cold)) {
    columns.push({ heading: 'cold start, small photo', pick: (t) => t.cold?.small }, { heading: 'cold start, large photo', pick: (t) => t.cold?.large });
  }
  return columns;
}

export interface RatioRow {
  label: string;
  versus: 'human' | 'face-api';
  ratios: number[];
}

/** engine / human and engine / face-api per configuration, one value per column (NaN where not measured). */
export function ratioRows(configs: readonly ConfigTimes[], columns: readonly RatioColumn[] = ratioColumns(configs)): RatioRow[] {
  return configs.flatMap((c) => {
    const ratios = columns.map((col) => {
      const times = col.pick(c);
      return times ? engineRatios(times) : { vsHuman: Number.NaN, vsFaceapi: Number.NaN };
    });
    return [
      { label: c.label, versus: 'human' as const, ratios: ratios.map((r) => r.vsHuman) },
      { label: c.label, versus: 'face-api' as const, ratios: ratios.map((r) => r.vsFaceapi) },
    ];
  });
}

const x = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');

/** The ratio table as markdown lines (engine / human in bold: the yardstick). */
export function renderRatioTable(configs: readonly ConfigTimes[]): string[] {
  const columns = ratioColumns(configs);
  return [
    `| | ${columns.map((c) => c.heading).join(' | ')} |`,
    `|---|${columns.map(() => '--:').join('|')}|`,
    ...ratioRows(configs, columns).map((r) => {
      const cells = r.ratios.map((v) => (r.versus === 'human' ? `**${x(v)}**` : x(v)));
      return `| ${r.label}: engine / ${r.versus} | ${cells.join(' | ')} |`;
    }),
  ];
}
