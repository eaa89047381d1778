// Hostile bursts against the BUILT server (`npm run build` first), and what the rest of the service feels:
//
//   npm run bench -- hostile [--only json,logins,seeds] [--keep DIR]
//
//  json   — 8 unauthenticated POST /api/fs/list at once, each a 15.9 MiB deeply nested JSON array
//  logins — 100 wrong-password logins at once for 100 existing users (each one hashes; none reaches a lockout),
//           while a 64 MiB file is downloaded: how long the download takes, against the same download idle
//  seeds  — 4 POST /api/fs/seed/parse at once, each a 3.4 MB torrent listing 100,000 files (as admin)
//
// During each burst `/ping` is sampled every 20 ms on its own keep-alive connection: the worst and p99 latency
// are printed (issue #16, items 4, 6 and 10). Bounded: every burst waits at most 120 s.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBencode } from '../src/modules/seeds/formats/index.js';
import { percentile } from './datapath/report.js';
import { probeLatency } from './datapath/clients.js';
import { startFerry, type Ferry } from './datapath/ferry.js';
import { MiB, parseArgs, printTable, timeIt } from './lib.js';

export const describe = 'hostile bursts (nested JSON, login floods, huge torrents): worst /ping latency meanwhile';

/** Sends one request with a body; resolves with the status (0 when the connection failed). */
function send(url: string, method: string, body: Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(url, { method, agent: false, headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(120_000, () => req.destroy());
    req.end(body);
  });
}

/** Runs `burst` while sampling /ping; returns the worst and p99 ping latency (ms) and the burst's result. */
async function duringBurst<T>(f: Ferry, burst: () => Promise<T>): Promise<{ worst: number; p99: number; result: T; seconds: number }> {
  let running = true;
  const probe = probeLatency(`${f.url}/ping`, { everyMs: 20, more: () => running, maxSamples: 20_000, maxMs: 180_000 });
  await new Promise((r) => setTimeout(r, 200));
  let result!: T;
  const seconds = await timeIt(async () => {
    result = await burst();
  });
  running = false;
  const samples = await probe;
  return { worst: Math.max(...samples), p99: percentile(samples, 99), result, seconds };
}

function nestedJson(bytes: number): Buffer {
  const depth = Math.floor((bytes - 2) / 2);
  return Buffer.from('['.repeat(depth) + ']'.repeat(depth));
}

/** A torrent listing `n` files of 1 byte (one piece each, well-formed), about 34 bytes per file. */
function hugeTorrent(n: number): Buffer {
  const files = [];
  for (let i = 0; i < n; i++) files.push(new Map<string, unknown>([['length', 1], ['path', [Buffer.from(`d${i % 100}`), Buffer.from(`f${i}`)]]]));
  const pieceLength = 16384;
  const pieces = Math.ceil(n / pieceLength);
  const info = new Map<string, unknown>([
    ['files', files],
    ['name', Buffer.from('huge')],
    ['piece length', pieceLength],
    ['pieces', Buffer.alloc(20 * pieces, 1)],
  ]);
  return Buffer.from(encodeBencode(new Map<string, unknown>([['announce', Buffer.from('http://tracker.invalid/announce')], ['info', info]]) as never));
}

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { only: 'value', keep: 'value' });
  const only = new Set(typeof opt.only === 'string' ? opt.only.split(',') : ['json', 'logins', 'seeds']);
  const dir = typeof opt.keep === 'string' ? opt.keep : await mkdtemp(join(tmpdir(), 'ferry-bench-hostile-'));
  console.log(`hostile bursts: cores ${availableParallelism()}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const f = await startFerry(dir);
  const rows: string[][] = [];
  try {
    const idle = await duringBurst(f, () => new Promise((r) => setTimeout(r, 2000)));
    rows.push(['idle (2 s)', '', idle.worst.toFixed(1), idle.p99.toFixed(1), '']);

    if (only.has('json')) {
      const body = nestedJson(16 * MiB - 4096);
      const r = await duringBurst(f, () => Promise.all(Array.from({ length: 8 }, () => send(`${f.url}/api/fs/list`, 'POST', body))));
      rows.push(['8 × 15.9 MiB nested JSON, no login', r.seconds.toFixed(1), r.worst.toFixed(1), r.p99.toFixed(1), `statuses ${[...new Set(r.result)].join(',')}`]);
    }

    if (only.has('logins')) {
      for (let i = 0; i < 100; i++) await f.call('POST', '/api/admin/user/create', { username: `burst-${i}`, password: `right-password-${i}` });
      const big = randomBytes(64 * MiB);
      await writeFile(join(f.filesDir, 'probe.bin'), big);
      const sign = await f.signOf('/probe.bin');
      const dl = `${f.url}/d/probe.bin${sign ? `?sign=${encodeURIComponent(sign)}` : ''}`;
      const fetchAll = async () => {
        const h = createHash('sha256');
        const res = await fetch(dl);
        for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) h.update(c);
        if (res.status !== 200) throw new Error(`download answered ${res.status}`);
        return h.digest('hex');
      };
      const alone = await timeIt(fetchAll);
      const r = await duringBurst(f, async () => {
        const logins = Promise.all(
          Array.from({ length: 100 }, (_, i) => send(`${f.url}/api/auth/login`, 'POST', Buffer.from(JSON.stringify({ username: `burst-${i}`, password: 'wrong password' })))),
        );
        await new Promise((res) => setTimeout(res, 50));
        const during = await timeIt(fetchAll);
        return { statuses: await logins, during };
      });
      rows.push([`100 logins at once; a 64 MiB download meanwhile`, r.seconds.toFixed(1), r.worst.toFixed(1), r.p99.toFixed(1), `download ${r.result.during.toFixed(2)} s (idle ${alone.toFixed(2)} s); statuses ${[...new Set(r.result.statuses)].join(',')}`]);
    }

    if (only.has('seeds')) {
      const torrent = hugeTorrent(100_000);
      const body = Buffer.from(JSON.stringify({ seed_data: torrent.toString('base64'), format: 'torrent' }));
      const r = await duringBurst(f, () => Promise.all(Array.from({ length: 4 }, () => send(`${f.url}/api/fs/seed/parse`, 'POST', body, { authorization: f.token }))));
      rows.push([`4 × parse of a ${(torrent.length / 1e6).toFixed(1)} MB torrent, 100,000 files`, r.seconds.toFixed(1), r.worst.toFixed(1), r.p99.toFixed(1), `statuses ${[...new Set(r.result)].join(',')}`]);
    }
  } finally {
    await f.stop();
    if (typeof opt.keep !== 'string') await rm(dir, { recursive: true, force: true });
  }
  printTable(['burst', 'burst s', '/ping worst ms', '/ping p99 ms', 'notes'], rows);
}
