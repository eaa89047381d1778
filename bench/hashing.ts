// Hashing benchmark: Ferry's engine against coreutils, mktorrent and node:crypto on one file.
//
//   npm run bench -- hashing [--size 1GiB] [--repeat 3] [--stream] [--keep DIR]
//
// (a) whole md5+sha1+sha256, (b) those plus per-file piece md5/sha1/sha256 (10 MiB pieces),
// (c) BitTorrent piece SHA-1s only (2^18-byte pieces). The 2-core "ideal" is derived from
// node:crypto's single-algorithm speed: the best split of the lanes over the cores.
// Variants are interleaved and each is repeated; the best run counts (the machine is shared).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { HashPool, hashInput } from '../src/modules/seeds/hashing/index.js';
import type { HashName, HashOptions, HashResult } from '../src/modules/seeds/hashing/index.js';
import { GiB, MiB, haveTool, parseArgs, parseBytes, printTable, runTool, timeIt, writeRandomFile } from './lib.js';

export const describe = 'engine vs md5sum/sha1sum/sha256sum side by side, mktorrent -t 2, node:crypto (1 GiB file)';

const ALGS: HashName[] = ['md5', 'sha1', 'sha256'];
const CORES = 2;

/** Best makespan of `tasks` (seconds each) over `cores` (exhaustive; few tasks). */
export function bestSplit(tasks: number[], cores = CORES): number {
  let best = Infinity;
  const n = tasks.length;
  for (let c = 0; c < cores ** n; c++) {
    const load = new Array<number>(cores).fill(0);
    let x = c;
    for (let i = 0; i < n; i++) {
      load[x % cores]! += tasks[i]!;
      x = Math.floor(x / cores);
    }
    best = Math.min(best, Math.max(...load));
  }
  return best;
}

/** The `pieces` string of a torrent file (enough bencode for mktorrent's output). */
function torrentPieces(buf: Buffer): Buffer {
  const at = buf.indexOf('6:pieces');
  const colon = buf.indexOf(':', at + 8);
  const len = Number(buf.toString('latin1', at + 8, colon));
  return buf.subarray(colon + 1, colon + 1 + len);
}

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { size: 'value', repeat: 'value', stream: 'flag', keep: 'value' });
  const size = parseBytes(typeof opt.size === 'string' ? opt.size : '1GiB');
  const repeat = Math.max(1, Number(opt.repeat ?? 3));
  const dir = typeof opt.keep === 'string' ? opt.keep : await mkdtemp(join(tmpdir(), 'ferry-bench-'));
  const file = join(dir, 'data.bin');
  const mb = size / 1e6;
  console.log(`hashing benchmark: ${(size / GiB).toFixed(2)} GiB file in ${dir}, ${repeat} rounds, best of each`);
  console.log(`cores: ${availableParallelism()}, load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const pool = new HashPool();
  try {
    await writeRandomFile(file, size); // just written, so in the page cache: every contender reads from it

    const tools = { coreutils: ['md5sum', 'sha1sum', 'sha256sum'].every(haveTool), mktorrent: haveTool('mktorrent') };
    if (!tools.coreutils) console.log('! md5sum/sha1sum/sha256sum missing: apt-get install coreutils');
    if (!tools.mktorrent) console.log('! mktorrent missing: apt-get install mktorrent');

    const block = Buffer.alloc(64 * MiB);
    const fh = await open(file, 'r');
    await fh.read(block, 0, Math.min(block.length, size), 0).finally(() => fh.close());
    const cryptoSpeed = (alg: HashName) => () => {
      const h = createHash(alg);
      for (let off = 0; off < size; off += block.length) h.update(off + block.length <= size ? block : block.subarray(0, size - off));
      h.digest();
      return Promise.resolve();
    };

    // The (a) split run for real on two plain threads (no I/O, no engine): shows what the
    // machine actually gives two busy threads right now (it is shared).
    const parallelCompute = async () => {
      const code = `
        const { parentPort, workerData } = require('node:worker_threads');
        const { createHash } = require('node:crypto');
        const block = Buffer.alloc(64 << 20, 7);
        for (const alg of workerData.algs) {
          const h = createHash(alg);
          for (let o = 0; o < workerData.size; o += block.length) h.update(o + block.length <= workerData.size ? block : block.subarray(0, workerData.size - o));
          h.digest();
        }
        parentPort.postMessage('done');`;
      const run1 = (algs: string[]) =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(code, { eval: true, workerData: { algs, size } });
          w.once('message', () => void w.terminate().then(() => resolve()));
          w.once('error', reject);
        });
      await Promise.all([run1(['md5']), run1(['sha1', 'sha256'])]);
    };

    const sets = {
      a: { whole: ALGS },
      b: { whole: ALGS, pieces: ALGS, pieceSize: 10 * MiB },
      c: { torrentPieceSize: 2 ** 18 },
    } satisfies Record<string, HashOptions>;
    const results: Partial<Record<string, HashResult>> = {};
    const ferry = (key: keyof typeof sets, stream = false) => async () => {
      const input = stream ? createReadStream(file, { highWaterMark: MiB }) : file;
      results[key + (stream ? '-stream' : '')] = await hashInput(input, { ...sets[key], pool });
    };
    let sums: string[] = [];
    let mkPieces: Buffer | undefined;
    const variants: [string, () => Promise<unknown>][] = [
      ['node:crypto md5', cryptoSpeed('md5')],
      ['node:crypto sha1', cryptoSpeed('sha1')],
      ['node:crypto sha256', cryptoSpeed('sha256')],
      ['2 threads: md5 | sha1+sha256, compute only', parallelCompute],
      ['ferry (a) whole md5+sha1+sha256', ferry('a')],
      ['ferry (b) whole + 10 MiB pieces, all six', ferry('b')],
      ['ferry (c) torrent pieces 2^18', ferry('c')],
    ];
    if (opt.stream) {
      variants.push(['ferry (a) via 1 MiB ReadStream', ferry('a', true)], ['ferry (c) via 1 MiB ReadStream', ferry('c', true)]);
    }
    if (tools.coreutils) {
      variants.push([
        'coreutils md5sum|sha1sum|sha256sum side by side',
        async () => {
          const outs = await Promise.all(['md5sum', 'sha1sum', 'sha256sum'].map((t) => runTool(t, [file])));
          sums = outs.map((o) => o.stdout.split(' ')[0]!);
        },
      ]);
    }
    if (tools.mktorrent) {
      const out = join(dir, 'mk.torrent');
      variants.push([
        'mktorrent -t 2 -l 18',
        async () => {
          await rm(out, { force: true });
          const r = await runTool('mktorrent', ['-t', '2', '-l', '18', '-o', out, file]);
          if (r.code !== 0) throw new Error(`mktorrent failed: ${r.stderr}`);
          mkPieces = torrentPieces(await readFile(out));
        },
      ]);
    }

    // Spin the workers up (and calibrate) before timing anything.
    await hashInput(Buffer.alloc(4 * MiB), { ...sets.b, pool, inlineThreshold: 0 });

    const best = new Map<string, number>();
    for (let r = 0; r < repeat; r++) {
      for (const [name, fn] of variants) {
        const s = await timeIt(fn);
        best.set(name, Math.min(best.get(name) ?? Infinity, s));
      }
    }

    // Correctness against the peers.
    const a = results.a!.files[0]!;
    if (sums.length === 3) {
      const ok = sums[0] === a.md5 && sums[1] === a.sha1 && sums[2] === a.sha256;
      console.log(`digests equal coreutils: ${ok ? 'yes' : `NO (${sums.join(' ')} vs ${a.md5} ${a.sha1} ${a.sha256})`}`);
    }
    if (mkPieces) console.log(`torrent pieces equal mktorrent's: ${mkPieces.equals(results.c!.torrentPieces!) ? 'yes' : 'NO'}`);

    const t = (name: string) => best.get(name) ?? NaN;
    const md5 = t('node:crypto md5');
    const sha1 = t('node:crypto sha1');
    const sha256 = t('node:crypto sha256');
    const idealA = bestSplit([md5, sha1, sha256]);
    const idealB = bestSplit([md5, md5, sha1, sha1, sha256, sha256]);
    const idealC = sha1 / CORES;
    const core = t('coreutils md5sum|sha1sum|sha256sum side by side');
    const mk = t('mktorrent -t 2 -l 18');
    const fa = t('ferry (a) whole md5+sha1+sha256');
    const fb = t('ferry (b) whole + 10 MiB pieces, all six');
    const fc = t('ferry (c) torrent pieces 2^18');

    const fmt = (s: number) => (Number.isFinite(s) ? s.toFixed(3) : '-');
    const rate = (s: number) => (Number.isFinite(s) ? (mb / s).toFixed(0) : '-');
    const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '-');
    const rows: string[][] = [];
    const row = (name: string, s: number, note = '') => rows.push([name, fmt(s), rate(s), note]);
    for (const [name] of variants) {
      const s = t(name);
      let note = '';
      if (name.startsWith('2 threads')) note = `${x(idealA / s)} of the derived ideal (how much of 2 cores the machine gives now)`;
      else if (name.startsWith('ferry (a)')) note = `${x(idealA / s)} of ideal (target ≥ 0.90×); ${x(core / s)} coreutils speed (target > 1); ${x(t('2 threads: md5 | sha1+sha256, compute only') / s)} of 2-thread compute`;
      else if (name.startsWith('ferry (b)')) note = `${x(idealB / s)} of ideal (target ≥ 0.85×)`;
      else if (name.startsWith('ferry (c)')) note = `time ${x(s / mk)} mktorrent's (target ≤ 1.00×); ${x(idealC / s)} of ideal`;
      row(name, s, note);
    }
    row('ideal (a): best split of md5|sha1|sha256 over 2 cores', idealA, 'from node:crypto single-algorithm times');
    row('ideal (b): best split of the six lanes over 2 cores', idealB, '');
    row('ideal (c): sha1 / 2 cores', idealC, '');
    console.log('');
    printTable(['variant', 'seconds', 'MB/s', 'ratio'], rows);
    console.log('');
    console.log(
      `summary: (a) ${x(idealA / fa)} ideal, ${x(core / fa)} coreutils; (b) ${x(idealB / fb)} ideal; (c) ${x(fc / mk)} mktorrent time`,
    );
    console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await pool.destroy();
    if (typeof opt.keep !== 'string') await rm(dir, { recursive: true, force: true });
  }
}
