// Where inline (calling-thread) hashing stops paying off: latency of small jobs inline vs on
// the worker pool, and how long an inline job blocks the event loop.
//
//   npm run bench -- hashing-threshold [--jobs 200]
import { randomBytes } from 'node:crypto';
import { HashPool, hashInput } from '../src/modules/seeds/hashing/index.js';
import type { HashOptions } from '../src/modules/seeds/hashing/index.js';
import { parseArgs, printTable } from './lib.js';

export const describe = 'small-input latency: inline vs worker pool (picks DEFAULT_INLINE_THRESHOLD)';

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { jobs: 'value' });
  const jobs = Math.max(10, Number(opt.jobs ?? 200));
  const pool = new HashPool();
  const sel: HashOptions = { whole: ['md5', 'sha1', 'sha256'], pool };
  try {
    await hashInput(randomBytes(1 << 20), { ...sel, inlineThreshold: 0 });
    const rows: string[][] = [];
    for (const size of [4 << 10, 16 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20]) {
      const data = randomBytes(size);
      const measure = async (inlineThreshold: number) => {
        let best = Infinity;
        for (let round = 0; round < 3; round++) {
          const t0 = process.hrtime.bigint();
          for (let i = 0; i < jobs; i++) await hashInput(data, { ...sel, inlineThreshold });
          best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6 / jobs);
        }
        return best;
      };
      const inline = await measure(Number.MAX_SAFE_INTEGER);
      const workers = await measure(0);
      rows.push([`${size >> 10} KiB`, inline.toFixed(3), workers.toFixed(3), inline < workers ? 'inline' : 'workers']);
    }
    printTable(['size', 'inline ms/job (= loop blocked)', 'workers ms/job', 'faster'], rows);
  } finally {
    await pool.destroy();
  }
}
