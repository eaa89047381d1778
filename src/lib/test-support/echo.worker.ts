/** A worker module for worker-pool.test.ts: answers each request with its own thread id and the request. */
import { threadId } from 'node:worker_threads';
import { serveWorker } from '../worker-pool.js';

serveWorker((req: string) => ({ threadId, req }));
