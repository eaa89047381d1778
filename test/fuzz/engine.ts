/**
 * The fuzz loop shared by the worker threads of `test/soak/fuzz.ts` and the bounded test:
 * input `i` of a run with seed `s` is fully determined by (s, i), so any failure or hang
 * replays with `fuzzInput(s, i)`.
 */
import { Buffer } from 'node:buffer';
import { corpus } from './corpus.js';
import { applyOps, randomOps, Rng } from './mutate.js';
import { checkInput, describeInput, FuzzFailure } from './oracle.js';

export interface FuzzCase {
  input: Buffer;
  /** Passed to `decodeAny` for detection by extension (sometimes absent, sometimes lying). */
  filename?: string;
}

let bytes: Buffer[] | undefined;
const corpusBytes = (): Buffer[] => (bytes ??= corpus().map((d) => d.bytes));

const NAMES = [undefined, undefined, 'x.oss', 'x.torrent', 'x.cas', 'X.CAS.TORRENT', 'x.bin'];

/** The `i`-th input of a run seeded with `seed`. */
export function fuzzInput(seed: number, i: number): FuzzCase {
  const rng = new Rng(Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b));
  const docs = corpus();
  const others = corpusBytes();
  const filename = rng.pick(NAMES);
  // 5%: arbitrary bytes (often made of corpus bytes' alphabet by the ops that follow).
  if (rng.chance(0.05)) {
    const raw = rng.bytes(rng.int(1024));
    return { input: rng.chance(0.5) ? raw : applyOps(raw, randomOps(rng), others), filename };
  }
  const base = rng.pick(docs);
  // 2%: an untouched document (the corpus must stay accepted).
  if (rng.chance(0.02)) return { input: base.bytes, filename };
  return { input: applyOps(base.bytes, randomOps(rng), others), filename };
}

export interface FuzzFinding {
  seed: number;
  index: number;
  target: string;
  property: string;
  message: string;
  input: string;
}

export interface FuzzTally {
  operations: number;
  /** Inputs no container decoder accepted. */
  rejected: number;
  /** Inputs at least one container decoder accepted. */
  accepted: number;
  findings: FuzzFinding[];
}

/**
 * Runs inputs `from`…`to-1` of `seed` (stops early at `deadline`, a Date.now() value).
 * `onInput(i)` is called before each input (the worker records it for hang reports).
 */
export function fuzzRange(seed: number, from: number, to: number, deadline: number, onInput: (i: number) => void = () => {}): FuzzTally {
  const tally: FuzzTally = { operations: 0, rejected: 0, accepted: 0, findings: [] };
  const seen = new Set<string>();
  for (let i = from; i < to; i++) {
    if ((i & 63) === 0 && Date.now() > deadline) break;
    onInput(i);
    const c = fuzzInput(seed, i);
    tally.operations++;
    try {
      const r = checkInput(c.input, c.filename);
      if (r.containers > 0) tally.accepted++;
      else tally.rejected++;
    } catch (e) {
      const f = e instanceof FuzzFailure ? e : new FuzzFailure('harness', 'threw', e);
      // One report per distinct problem (the message without byte offsets).
      const key = f.message.replace(/\d+/g, '#').slice(0, 200);
      if (!seen.has(key) && tally.findings.length < 50) {
        seen.add(key);
        tally.findings.push({ seed, index: i, target: f.target, property: f.property, message: f.message.slice(0, 2000), input: describeInput(c.input) });
      }
    }
  }
  return tally;
}
