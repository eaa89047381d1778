// Upload with sidecars: a 1 GiB `curl -T` upload over loopback to the BUILT server, with and
// without all three sidecars (X-Seed-Sidecars: oss,torrent,cas and every whole + piece hash),
// against two limits measured in the same run:
//   - the hashing limit: Ferry's hashing engine alone over the same file with the same selection
//     (md5+sha1+sha256 whole and 10 MiB pieces; a single file's torrent pieces are its sha1
//     pieces) — the most an upload with sidecars can do on this machine;
//   - the transport limit: the same `curl -T` into a Node server that discards the body.
// While the sidecar upload runs, the server's RSS is sampled every 100 ms and `GET /api/me` is
// timed back to back (p99 reported).
//
//   npm run build && npm run bench -- upload [--size 1GiB] [--repeat 1]
//
// Targets: upload with sidecars ≥ 0.9 × the hashing limit, peak RSS ≤ 200 MB, p99 ≤ 25 ms.
import { createServer } from 'node:http';
import { rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashPool, hashInput } from '../src/modules/seeds/hashing/index.js';
import { startServer, api } from '../test/support/process.js';
import { GiB, MiB, haveTool, rssBytes, parseArgs, parseBytes, printTable, runTool, timeIt, writeRandomFile } from './lib.js';

export const describe = '1 GiB upload with/without three sidecars vs the hashing limit and a null sink; RSS and /api/me p99';

const PASSWORD = 'bench-admin-pass';
const ALL_SIX = JSON.stringify({ md5: { whole: true, pieces: true }, sha1: { whole: true, pieces: true }, sha256: { whole: true, pieces: true } });

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

async function curlPut(url: string, file: string, headers: string[]): Promise<void> {
  const r = await runTool('curl', ['-sS', '-T', file, '-o', '/dev/null', '-w', '%{http_code}', ...headers.flatMap((h) => ['-H', h]), url]);
  if (r.code !== 0) throw new Error(`curl exited ${r.code}: ${r.stderr}`);
  if (r.stdout.trim() !== '200') throw new Error(`upload answered HTTP ${r.stdout.trim()}`);
}

/** A server that reads and discards every request body. */
async function nullSink(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address() as { port: number };
  return { url: `http://127.0.0.1:${a.port}/`, close: () => new Promise((r) => server.close(() => r())) };
}

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { size: 'value', repeat: 'value' });
  const size = parseBytes(String(opt.size ?? '1GiB'));
  const repeat = Math.max(1, Number(opt.repeat ?? 1));
  if (!haveTool('curl')) throw new Error('curl is needed');

  const work = await mkdtemp(join(tmpdir(), 'ferry-bench-upload-'));
  const src = join(work, 'source.bin');
  await writeRandomFile(src, size);
  const sink = await nullSink();
  const server = await startServer({ FERRY_DATA_DIR: join(work, 'data'), FERRY_ADMIN_PASSWORD: PASSWORD });
  const pid = server.child.pid!;
  const pool = new HashPool();
  try {
    const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: PASSWORD } });
    if (login.status !== 200) throw new Error(`login failed: ${login.body.message}`);
    const token = login.body.data.token as string;
    const auth = `Authorization: ${token}`;
    const rows: string[][] = [];
    let worst = { ratio: Infinity, rss: 0, p99: 0 };

    for (let round = 1; round <= repeat; round++) {
      const hashing = await timeIt(() =>
        hashInput(src, { whole: ['md5', 'sha1', 'sha256'], pieces: ['md5', 'sha1', 'sha256'], pieceSize: 10 * MiB, pool }),
      );
      const transport = await timeIt(() => curlPut(sink.url, src, []));
      const plain = await timeIt(() => curlPut(`${server.url}/api/fs/put`, src, [auth, `File-Path: /plain-${round}.bin`]));
      await rm(join(work, 'data', 'files', `plain-${round}.bin`), { force: true });

      let peak = await rssBytes(pid);
      const latencies: number[] = [];
      let uploading = true;
      const sampler = setInterval(() => void rssBytes(pid).then((r) => (peak = Math.max(peak, r)), () => undefined), 100);
      const prober = (async () => {
        // back to back, bounded: at most 100 000 requests, only while the upload runs
        for (let i = 0; uploading && i < 100_000; i++) {
          const t0 = process.hrtime.bigint();
          const r = await api(server.url, 'GET', '/api/me', { token });
          if (r.status !== 200) throw new Error(`/api/me answered ${r.status}`);
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          await new Promise((res) => setTimeout(res, 10));
        }
      })();
      const sidecars = await timeIt(() =>
        curlPut(`${server.url}/api/fs/put`, src, [auth, `File-Path: /seeded-${round}.bin`, 'X-Seed-Sidecars: oss,torrent,cas', `X-Seed-Hash-Matrix: ${ALL_SIX}`]),
      ).finally(() => {
        uploading = false;
        clearInterval(sampler);
      });
      await prober;
      peak = Math.max(peak, await rssBytes(pid));
      for (const f of ['', '.oss', '.torrent', '.cas']) await rm(join(work, 'data', 'files', `seeded-${round}.bin${f}`), { force: true });

      const p99 = percentile(latencies, 99);
      const ratio = hashing / sidecars;
      worst = { ratio: Math.min(worst.ratio, ratio), rss: Math.max(worst.rss, peak), p99: Math.max(worst.p99, p99) };
      const speed = (secs: number) => `${secs.toFixed(2)} s (${(size / MiB / secs).toFixed(0)} MiB/s)`;
      rows.push([
        String(round),
        speed(hashing),
        speed(transport),
        speed(plain),
        speed(sidecars),
        ratio.toFixed(2),
        (transport / sidecars).toFixed(2),
        (peak / 1e6).toFixed(1),
        `${p99.toFixed(1)} (${latencies.length})`,
      ]);
    }
    console.log(`upload of ${(size / GiB).toFixed(2)} GiB (random bytes) with curl -T to ${server.url}/api/fs/put; server pid ${pid}`);
    printTable(
      ['round', 'hashing limit', 'null sink (curl)', 'upload, no sidecars', 'upload, 3 sidecars', 'sidecars / hashing', 'sidecars / null sink', 'peak RSS MB', '/api/me p99 ms (n)'],
      rows,
    );
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(`\nworst round: ${worst.ratio.toFixed(2)} × the hashing limit (target ≥ 0.9: ${verdict(worst.ratio >= 0.9)}), ` +
      `peak RSS ${(worst.rss / 1e6).toFixed(1)} MB (target ≤ 200: ${verdict(worst.rss <= 200e6)}), ` +
      `/api/me p99 ${worst.p99.toFixed(1)} ms (target ≤ 25: ${verdict(worst.p99 <= 25)})`);
  } finally {
    await pool.destroy();
    await server.stop();
    await sink.close();
    await rm(work, { recursive: true, force: true });
  }
}
