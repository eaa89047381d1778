/**
 * The soak fuzzer: every seed parser on ≥ 1,000,000 mutated and arbitrary inputs, spread over
 * worker threads (one per core), each with a heap limit (memory must stay bounded) and a
 * watchdog (no input may hang). See `test/fuzz/oracle.ts` for the properties checked.
 *
 *   runFuzz({ inputs: 1_000_000, deadlineMs: 9 * 60_000, log: console.log })
 *
 * operations = inputs checked, faults = inputs every container decoder rejected (typed
 * SeedFormatError), crashes = property violations (any other exception, unstable round
 * trips, unreadable own output), hangs and out-of-memory workers.
 * Alone: `npx tsx test/soak/fuzz.ts [inputs] [seed]`.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fuzzInput } from '../fuzz/engine.js';
import type { FuzzFinding, FuzzTally } from '../fuzz/engine.js';
import { describeInput } from '../fuzz/oracle.js';

export interface FuzzOptions {
  inputs: number;
  deadlineMs: number;
  log: (line: string) => void;
  /** Default: available parallelism. */
  workers?: number;
  /** Default: derived from the clock (printed, so a run can be replayed). */
  seed?: number;
  /** A worker silent for this long is hung (default 60 s). */
  hangMs?: number;
  /** Heap limit per worker (default 768 MiB). */
  heapMb?: number;
}

export interface FuzzReport {
  operations: number;
  faults: number;
  crashes: number;
  accepted: number;
  seed: number;
  ms: number;
  findings: FuzzFinding[];
}

function startWorker(data: object, heapMb: number): Worker {
  const here = import.meta.url;
  const opts = { workerData: data, resourceLimits: { maxOldGenerationSizeMb: heapMb }, name: 'ferry-fuzz' };
  if (here.endsWith('.ts')) {
    // Under tsx the worker registers tsx itself (as the hashing pool does).
    const api = import.meta.resolve('tsx/esm/api');
    const entry = new URL('../fuzz/worker.ts', here).href;
    return new Worker(`import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`, { ...opts, eval: true });
  }
  return new Worker(new URL('../fuzz/worker.js', here), opts);
}

/** Runs one worker over inputs [from, to); resolves when it is done, dead or hung. */
function runWorker(opts: FuzzOptions, seed: number, from: number, to: number, deadline: number, onTally: (t: FuzzTally) => void, onLost: (f: FuzzFinding) => void): Promise<void> {
  const current = new SharedArrayBuffer(4);
  const index = new Int32Array(current);
  Atomics.store(index, 0, from);
  const hangMs = opts.hangMs ?? 60_000;
  return new Promise<void>((resolve) => {
    const worker = startWorker({ seed, from, to, deadline, current, batch: 2000 }, opts.heapMb ?? 768);
    let finished = false;
    let heard = Date.now();
    const lost = (what: string) => {
      if (finished) return;
      finished = true;
      const i = Atomics.load(index, 0);
      onLost({ seed, index: i, target: 'worker', property: what, message: what, input: describeInput(fuzzInput(seed, i).input) });
    };
    const watchdog = setInterval(() => {
      if (Date.now() - heard <= hangMs) return;
      lost(`no progress for ${hangMs} ms (hang)`);
      void worker.terminate();
    }, 1000);
    worker.on('message', (m: { type: 'progress'; tally: FuzzTally } | { type: 'done' }) => {
      heard = Date.now();
      if (m.type === 'done') finished = true;
      else onTally(m.tally);
    });
    worker.on('error', (e) => lost(`worker died: ${String(e)}`));
    worker.on('exit', (code) => {
      clearInterval(watchdog);
      lost(`worker exited with code ${code}`);
      resolve();
    });
  });
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const deadline = started + opts.deadlineMs;
  const seed = (opts.seed ?? started) >>> 0;
  const n = Math.max(1, Math.min(opts.workers ?? availableParallelism(), opts.inputs));
  const report: FuzzReport = { operations: 0, faults: 0, crashes: 0, accepted: 0, seed, ms: 0, findings: [] };
  opts.log(`fuzz: ${opts.inputs} inputs, seed ${seed}, ${n} worker(s), deadline ${Math.round(opts.deadlineMs / 1000)} s`);
  let lastLog = Date.now();
  const onFinding = (f: FuzzFinding) => {
    report.crashes++;
    if (report.findings.length < 50) report.findings.push(f);
    opts.log(`fuzz: CRASH ${f.target}: ${f.property} — replay: fuzzInput(${f.seed}, ${f.index}) — ${f.message.split('\n')[0]}`);
  };
  const onTally = (t: FuzzTally) => {
    report.operations += t.operations;
    report.faults += t.rejected;
    report.accepted += t.accepted;
    t.findings.forEach(onFinding);
    if (Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      opts.log(`fuzz: ${report.operations} inputs, ${report.crashes} crash(es), ${Math.round((Date.now() - started) / 1000)} s`);
    }
  };
  const per = Math.ceil(opts.inputs / n);
  await Promise.all(Array.from({ length: n }, (_, w) => runWorker(opts, seed, w * per, Math.min(opts.inputs, (w + 1) * per), deadline, onTally, onFinding)));
  report.ms = Date.now() - started;
  opts.log(`fuzz: ${report.operations} inputs (${report.accepted} accepted, ${report.faults} rejected), ${report.crashes} crash(es) in ${Math.round(report.ms / 1000)} s`);
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const inputs = Number(process.argv[2] ?? 1_000_000);
  const r = await runFuzz({ inputs, deadlineMs: 30 * 60_000, log: (l) => console.log(l), seed: process.argv[3] ? Number(process.argv[3]) : undefined });
  process.exit(r.crashes === 0 && r.operations >= inputs ? 0 : 1);
}
