/** A worker module for worker-pool.test.ts: answers each request with its own thread id, its nice value and the request. */
import { readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { serveWorker } from '../worker-pool.js';

/** This thread's nice value (Linux: field 19 of /proc/thread-self/stat; the name field before it has no spaces here). */
function ownNice(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[18]);
  } catch {
    return null;
  }
}

serveWorker((req: string) => ({ threadId, nice: ownNice(), req }));
