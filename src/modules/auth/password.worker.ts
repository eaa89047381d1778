/** Worker thread of password.ts: scrypt runs here, not on libuv's pool, which file I/O shares. */
import { scryptSync } from 'node:crypto';
import { serveWorker } from '../../lib/worker-pool.js';

export interface ScryptRequest {
  password: string;
  salt: string;
  keyLength: number;
  options: { N: number; r: number; p: number; maxmem: number };
}

serveWorker((r: ScryptRequest) => scryptSync(r.password, r.salt, r.keyLength, r.options));
