// Upload memory: the BUILT server as a process receives a 1 GiB upload from `curl -T` while its
// RSS (/proc/<pid>/status VmRSS) is sampled every 100 ms. Reports the peak against the 200 MB
// target and the upload throughput against a plain `cp` of the same file on the same disk.
//
//   npm run build && npm run bench -- upload-rss [--size 1GiB] [--target-mb 200] [--repeat 1]
//
// The source is a sparse file (`truncate -s`): reading it costs no disk I/O, so the upload
// measures Ferry's receive path (HTTP parsing, hashing md5+sha1+sha256, writing every byte).
// Baselines: `cp --sparse=never` + `sync FILE` (writes and fsyncs every byte, as Ferry's commit
// does: the "speed / cp" column), `cp --sparse=never` alone (page cache only), plain `cp` (GNU cp
// keeps holes, so it writes next to nothing), and the md5+sha1+sha256 Ferry computes on the way
// (node:crypto, one pass, one thread).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, api } from '../test/support/process.js';
import { GiB, MiB, haveTool, rssBytes, parseArgs, parseBytes, printTable, runTool, timeIt } from './lib.js';

export const describe = 'server RSS while receiving a 1 GiB `curl -T` upload (target 200 MB) and throughput vs cp';

const PASSWORD = 'bench-admin-pass';

const mb = (b: number) => (b / 1e6).toFixed(1);
const rate = (bytes: number, sec: number) => `${(bytes / MiB / sec).toFixed(0)} MiB/s`;

async function hashFile(path: string): Promise<void> {
  const hs = ['md5', 'sha1', 'sha256'].map((a) => createHash(a));
  for await (const chunk of createReadStream(path, { highWaterMark: MiB })) for (const h of hs) h.update(chunk as Buffer);
  for (const h of hs) h.digest();
}

async function run1(cmd: string, args: string[]): Promise<void> {
  const r = await runTool(cmd, args);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
}

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { size: 'value', 'target-mb': 'value', repeat: 'value' });
  const size = parseBytes(String(opt.size ?? '1GiB'));
  const targetMb = Number(opt['target-mb'] ?? 200);
  const repeat = Math.max(1, Number(opt.repeat ?? 1));
  for (const tool of ['curl', 'truncate', 'cp', 'sync']) if (!haveTool(tool)) throw new Error(`${tool} is needed`);

  const work = await mkdtemp(join(tmpdir(), 'ferry-bench-rss-'));
  const dataDir = join(work, 'data');
  const src = join(work, 'source.bin');
  await run1('truncate', ['-s', String(size), src]);
  const server = await startServer({ FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: PASSWORD });
  const pid = server.child.pid!;
  try {
    const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: PASSWORD } });
    if (login.status !== 200) throw new Error(`login failed: ${login.body.message}`);
    const token = login.body.data.token as string;

    const rows: string[][] = [];
    let worstPeak = 0;
    for (let round = 1; round <= repeat; round++) {
      // baselines on the same disk
      const cpDst = join(work, 'cp.bin');
      const cpSparse = await timeIt(() => run1('cp', [src, cpDst]));
      await rm(cpDst, { force: true });
      const cpFull = await timeIt(() => run1('cp', ['--sparse=never', src, cpDst]));
      await rm(cpDst, { force: true });
      // Ferry fsyncs the file before the rename that publishes it; so does this baseline
      const cpSync = await timeIt(async () => {
        await run1('cp', ['--sparse=never', src, cpDst]);
        await run1('sync', [cpDst]);
      });
      await rm(cpDst, { force: true });
      // the three digests Ferry computes on the way, in one pass on one thread
      const hashOnly = await timeIt(() => hashFile(src));

      const idle = await rssBytes(pid);
      let peak = idle;
      let samples = 0;
      const timer = setInterval(() => {
        rssBytes(pid)
          .then((r) => {
            samples++;
            peak = Math.max(peak, r);
          })
          .catch(() => undefined);
      }, 100);
      const target = `/bench-${round}.bin`;
      let curlOut = '';
      const secs = await timeIt(async () => {
        const r = await runTool('curl', [
          '-sS', '-T', src, '-o', '/dev/null', '-w', '%{http_code}',
          '-H', `Authorization: ${token}`, '-H', `File-Path: ${encodeURIComponent(target)}`,
          `${server.url}/api/fs/put`,
        ]);
        curlOut = r.stdout.trim();
        if (r.code !== 0) throw new Error(`curl exited ${r.code}: ${r.stderr}`);
      });
      clearInterval(timer);
      peak = Math.max(peak, await rssBytes(pid));
      if (curlOut !== '200') throw new Error(`upload answered HTTP ${curlOut}`);
      const landed = await stat(join(dataDir, 'files', target.slice(1)));
      if (landed.size !== size) throw new Error(`stored ${landed.size} bytes, sent ${size}`);
      const got = await api(server.url, 'POST', '/api/fs/get', { token, body: { path: target } });
      const sha = got.body.data?.hash_info?.sha256 as string | undefined;
      await rm(join(dataDir, 'files', target.slice(1)), { force: true });
      worstPeak = Math.max(worstPeak, peak);
      rows.push([
        String(round),
        mb(idle),
        mb(peak),
        (peak / (targetMb * 1e6)).toFixed(2),
        String(samples),
        `${secs.toFixed(2)} s (${rate(size, secs)})`,
        `${cpSync.toFixed(2)} s (${rate(size, cpSync)})`,
        (cpSync / secs).toFixed(2),
        `${cpFull.toFixed(2)} s (${rate(size, cpFull)})`,
        `${cpSparse.toFixed(2)} s`,
        `${hashOnly.toFixed(2)} s (${rate(size, hashOnly)})`,
        sha ? sha.slice(0, 12) : '-',
      ]);
    }
    console.log(`upload of ${(size / GiB).toFixed(2)} GiB (sparse source) with curl -T to ${server.url}/api/fs/put; server pid ${pid}`);
    printTable(
      ['round', 'idle RSS MB', 'peak RSS MB', `peak / ${targetMb} MB`, 'samples', 'upload (curl -T)', 'cp --sparse=never + sync', 'upload speed / cp', 'cp --sparse=never', 'cp', 'md5+sha1+sha256 only', 'sha256'],
      rows,
    );
    console.log(`\npeak RSS ${mb(worstPeak)} MB = ${(worstPeak / (targetMb * 1e6)).toFixed(2)} × the ${targetMb} MB target: ${worstPeak <= targetMb * 1e6 ? 'within' : 'OVER'} target`);
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}
