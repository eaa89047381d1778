/**
 * A fuzz worker thread (started by `test/soak/fuzz.ts`): runs its share of a run and reports
 * progress. The index of the input being checked is kept in shared memory so the parent can
 * name the input of a hang or of a worker killed by its memory limit.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fuzzRange } from './engine.js';

export interface WorkerTask {
  seed: number;
  from: number;
  to: number;
  deadline: number;
  /** Int32Array over a SharedArrayBuffer: [current input index]. */
  current: SharedArrayBuffer;
  batch: number;
}

// Most inputs are rejected with an exception: skipping stack capture makes that ~20% cheaper.
// A finding names its input, whose replay (`fuzzInput(seed, index)`) gives the full stack.
Error.stackTraceLimit = 0;

const task = workerData as WorkerTask;
const current = new Int32Array(task.current);
for (let from = task.from; from < task.to && Date.now() < task.deadline; from += task.batch) {
  const tally = fuzzRange(task.seed, from, Math.min(task.to, from + task.batch), task.deadline, (i) => Atomics.store(current, 0, i));
  parentPort!.postMessage({ type: 'progress', tally });
}
parentPort!.postMessage({ type: 'done' });
