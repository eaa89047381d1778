// Spreads a job's lanes over the workers so the slowest worker finishes as early as possible.
//
// Whole-file lanes cannot be split: they are placed by exhaustive search (at most three of
// them). Piece lanes are divisible at piece granularity: they then fill the workers up to a
// common level ("water filling"), each lane taking a contiguous fraction of the unit interval
// per worker (see `piecePosition` in lanes.ts for how fractions map to pieces).
import { createHash } from 'node:crypto';
import type { LaneSpec } from './lanes.js';
import { HASH_NAMES } from './types.js';
import type { HashName, HashSelection } from './types.js';
import { DEFAULT_PIECE_SIZE } from './types.js';

/** Relative cost per byte of each algorithm (any unit; only ratios matter). */
export type AlgorithmCosts = Record<HashName, number>;

export interface NormalizedSelection {
  whole: HashName[];
  pieces: HashName[];
  pieceSize: number;
  torrentPieceSize: number | undefined;
}

const checkPieceSize = (n: number, what: string): number => {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${what} must be a positive integer, got ${n}`);
  return n;
};

export function normalizeSelection(sel: HashSelection): NormalizedSelection {
  const pick = (list: readonly HashName[] | undefined): HashName[] => {
    for (const a of list ?? []) if (!HASH_NAMES.includes(a)) throw new RangeError(`unknown hash algorithm ${String(a)}`);
    return HASH_NAMES.filter((a) => list?.includes(a));
  };
  return {
    whole: pick(sel.whole),
    pieces: pick(sel.pieces),
    pieceSize: checkPieceSize(sel.pieceSize ?? DEFAULT_PIECE_SIZE, 'pieceSize'),
    torrentPieceSize: sel.torrentPieceSize === undefined ? undefined : checkPieceSize(sel.torrentPieceSize, 'torrentPieceSize'),
  };
}

export const selectionIsEmpty = (s: NormalizedSelection): boolean =>
  s.whole.length === 0 && s.pieces.length === 0 && s.torrentPieceSize === undefined;

/** Every lane on one participant (the inline path). */
export function singleParticipantLanes(s: NormalizedSelection): LaneSpec[] {
  const all = [0, 1] as const;
  const lanes: LaneSpec[] = s.whole.map((alg) => ({ kind: 'whole', alg }) as const);
  for (const alg of s.pieces) lanes.push({ kind: 'pieces', alg, pieceSize: s.pieceSize, share: all });
  if (s.torrentPieceSize !== undefined) lanes.push({ kind: 'torrent', pieceSize: s.torrentPieceSize, share: all });
  return lanes;
}

/** Fractions below this are not worth a worker touching the lane. */
const MIN_FRACTION = 0.02;

/**
 * Assigns lanes to at most `workers` participants. Returns one lane list per participant
 * (empty lists are dropped, so the result may be shorter than `workers`).
 */
export function planLanes(s: NormalizedSelection, workers: number, costs: AlgorithmCosts): LaneSpec[][] {
  const k = Math.max(1, Math.floor(workers));
  const seq = s.whole;
  // Exhaustive placement of the sequential lanes (k^n, n ≤ 3).
  let bestAssign: number[] = seq.map(() => 0);
  let bestLoad = Infinity;
  const combos = k ** seq.length;
  for (let c = 0; c < combos; c++) {
    const assign: number[] = [];
    const loads = new Array<number>(k).fill(0);
    let x = c;
    for (let i = 0; i < seq.length; i++) {
      const w = x % k;
      x = Math.floor(x / k);
      assign.push(w);
      loads[w]! += costs[seq[i]!];
    }
    const max = Math.max(...loads);
    if (max < bestLoad - 1e-12) {
      bestLoad = max;
      bestAssign = assign;
    }
  }
  const loads = new Array<number>(k).fill(0);
  const out: LaneSpec[][] = Array.from({ length: k }, () => []);
  seq.forEach((alg, i) => {
    out[bestAssign[i]!]!.push({ kind: 'whole', alg });
    loads[bestAssign[i]!]! += costs[alg];
  });

  const divisible: { cost: number; make: (share: readonly [number, number]) => LaneSpec }[] = s.pieces.map((alg) => ({
    cost: costs[alg],
    make: (share) => ({ kind: 'pieces', alg, pieceSize: s.pieceSize, share }),
  }));
  const tps = s.torrentPieceSize;
  if (tps !== undefined) divisible.push({ cost: costs.sha1, make: (share) => ({ kind: 'torrent', pieceSize: tps, share }) });

  if (divisible.length > 0) {
    // Water level L: Σ max(0, L − load_i) = total divisible cost.
    const total = divisible.reduce((a, d) => a + d.cost, 0);
    const sorted = [...loads].sort((a, b) => a - b);
    let level = 0;
    let acc = 0;
    for (let i = 0; i < k; i++) {
      acc += sorted[i]!;
      const l = (total + acc) / (i + 1);
      if (i === k - 1 || l <= sorted[i + 1]!) {
        level = l;
        break;
      }
    }
    const capacity = loads.map((l) => Math.max(0, level - l));
    // Fill workers in order of spare capacity, lanes in order; each lane takes contiguous fractions.
    const order = capacity.map((c, i) => ({ c, i })).sort((a, b) => b.c - a.c).map((e) => e.i);
    let wi = 0;
    for (const d of divisible) {
      let remaining = d.cost;
      let lo = 0;
      const parts: { w: number; frac: number }[] = [];
      while (remaining > 1e-12 && wi < order.length) {
        const w = order[wi]!;
        const take = Math.min(capacity[w]!, remaining);
        if (take > 1e-12) parts.push({ w, frac: take / d.cost });
        capacity[w]! -= take;
        remaining -= take;
        if (capacity[w]! <= 1e-12) wi++;
      }
      if (parts.length === 0) parts.push({ w: order[0]!, frac: 1 });
      // Merge slivers into the largest part, then lay the fractions out over [0, 1).
      const kept = parts.filter((p) => p.frac >= MIN_FRACTION);
      const main = kept.length > 0 ? kept : [parts.reduce((a, b) => (b.frac > a.frac ? b : a))];
      const sum = main.reduce((a, p) => a + p.frac, 0);
      main.forEach((p, j) => {
        const hi = j === main.length - 1 ? 1 : lo + p.frac / sum;
        out[p.w]!.push(d.make([lo, hi]));
        lo = hi;
      });
    }
  }
  return out.filter((l) => l.length > 0);
}

let measured: AlgorithmCosts | undefined;

/**
 * Per-byte cost of each algorithm on this machine (node:crypto, i.e. OpenSSL; SHA extensions
 * make SHA-1/SHA-256 cheaper than MD5 on many CPUs, the reverse elsewhere). Measured once, on the
 * event loop when the first job starts: 128 KiB per round keeps that to a millisecond or two (1 MiB
 * rounds held the loop 15–50 ms, issue #17) and the ratios within a few percent.
 */
export function algorithmCosts(): AlgorithmCosts {
  if (measured) return measured;
  const buf = Buffer.alloc(128 * 1024, 0x5a);
  const costs = {} as AlgorithmCosts;
  for (const alg of HASH_NAMES) {
    let best = Infinity;
    for (let round = 0; round < 3; round++) {
      const t0 = process.hrtime.bigint();
      createHash(alg).update(buf).digest();
      best = Math.min(best, Number(process.hrtime.bigint() - t0));
    }
    costs[alg] = Math.max(best, 1);
  }
  measured = costs;
  return costs;
}
