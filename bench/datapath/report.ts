// Figures and the final table of the datapath benchmark: medians of alternating runs, ratios
// against a target, and `| work | Ferry | peer | ratio | target | met |` rows.
import { GiB, MiB } from '../lib.js';

export interface Row {
  work: string;
  ferry: string;
  peer: string;
  ratio: string;
  target: string;
  met: string;
}

/** Median of a non-empty list (mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/**
 * Runs `ferry` and `peer` alternately, `repeat` times each (Ferry, peer, Ferry, peer, …), and
 * returns every figure each produced. `between` runs after every single run, untimed (e.g. a
 * `sync` so that one run's write-back does not land in the next one's time).
 */
export async function alternate(
  label: string,
  repeat: number,
  ferry: (round: number) => Promise<number>,
  peer: (round: number) => Promise<number>,
  opts: { unit: string; between?: () => Promise<void>; peerName: string },
): Promise<{ ferry: number[]; peer: number[] }> {
  const out = { ferry: [] as number[], peer: [] as number[] };
  for (let round = 1; round <= repeat; round++) {
    for (const [who, fn, list] of [['Ferry', ferry, out.ferry], [opts.peerName, peer, out.peer]] as const) {
      const v = await fn(round);
      list.push(v);
      console.log(`  ${label} #${round} ${who}: ${fmt(v)} ${opts.unit}`);
      await opts.between?.();
    }
  }
  return out;
}

/** `1 GiB`, `64 MiB`, `1.5 GiB`, `123456 B`. */
export function sizeLabel(bytes: number): string {
  const trim = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, ''));
  if (bytes >= GiB) return `${trim(bytes / GiB)} GiB`;
  if (bytes >= MiB) return `${trim(bytes / MiB)} MiB`;
  return `${bytes} B`;
}

const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** `12.3 s (83 MiB/s)` for a transfer of `bytes`. */
export function fmtTransfer(secs: number, bytes: number): string {
  return `${secs.toFixed(2)} s (${(bytes / MiB / secs).toFixed(0)} MiB/s)`;
}

/** `1234 req/s`. */
export const fmtRate = (r: number): string => `${fmt(r)} req/s`;

/** `12.3 ms`. */
export const fmtMs = (ms: number): string => `${fmt(ms)} ms`;

/** `≤ 1.6×`-style target and whether `ratio` meets it. */
function verdict(ratio: number, max: number): { target: string; met: string } {
  return { target: `≤ ${max}×`, met: !Number.isFinite(ratio) ? '?' : ratio <= max ? 'yes' : 'NO' };
}

/** A row comparing transfer times: ratio = Ferry median time / peer median time. */
export function timeRow(work: string, ferrySecs: number[], peerSecs: number[], bytes: number, maxRatio: number, peerName: string): Row {
  const f = median(ferrySecs);
  const p = median(peerSecs);
  const ratio = f / p;
  return { work, ferry: fmtTransfer(f, bytes), peer: `${peerName} ${fmtTransfer(p, bytes)}`, ratio: `${ratio.toFixed(2)}×`, ...verdict(ratio, maxRatio) };
}

/**
 * A row comparing request rates: ratio = peer median rate / Ferry median rate, so it too reads
 * "how many times slower". `target` overrides the printed target (e.g. "Ferry ≥ 0.7× bare").
 */
export function rateRow(work: string, ferryRates: number[], peerRates: number[], maxRatio: number, peerName: string, target?: string): Row {
  const f = median(ferryRates);
  const p = median(peerRates);
  const ratio = p / f;
  const v = verdict(ratio, maxRatio);
  return { work, ferry: fmtRate(f), peer: `${peerName} ${fmtRate(p)}`, ratio: `${ratio.toFixed(2)}×`, target: target ?? v.target, met: v.met };
}

/** A row with an absolute limit (latency, memory): met when `value ≤ limit`. */
export function limitRow(work: string, value: number, shown: string, limit: number, limitText: string, peer = '—'): Row {
  return { work, ferry: shown, peer, ratio: '—', target: limitText, met: !Number.isFinite(value) ? '?' : value <= limit ? 'yes' : 'NO' };
}

/** A row that could not be measured, with the reason in the Ferry column. */
export function naRow(work: string, why: string, peer = '—', target = '—'): Row {
  return { work, ferry: `n/a (${why})`, peer, ratio: '—', target, met: '—' };
}

/** Prints rows as a Markdown table (pipes inside cells are escaped). */
export function printMarkdown(rows: readonly Row[]): void {
  const header: Row = { work: 'work', ferry: 'Ferry', peer: 'peer', ratio: 'ratio', target: 'target', met: 'met' };
  const keys = Object.keys(header) as Array<keyof Row>;
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const widths = keys.map((k) => Math.max(...[header, ...rows].map((r) => cell(r[k]).length)));
  const line = (r: Row) => `| ${keys.map((k, i) => cell(r[k]).padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}
