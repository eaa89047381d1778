/**
 * Load: a real Ferry process (built server, SQLite, local storage), N concurrent uploads of
 * random data with all three sidecars (`X-Seed-Sidecars: oss,torrent,cas`), plus continuous API
 * traffic from autocannon (`GET /api/me`, `POST /api/fs/list`) for a bounded time. Afterwards
 * every stored file is hashed with coreutils (`md5sum`, `sha1sum`, `sha256sum`) and compared with
 * the bytes sent and with every whole hash in each of its sidecars; a missing sidecar is a
 * mismatch. The server runs with FERRY_EVENT_LOOP_STATS=1 and logs its event-loop delay
 * percentiles at shutdown; the p99 is reported.
 *
 *   runLoad({ uploads: 20, sizeMb: 100, durationMs: 30_000, log: console.log })
 * Alone: `npx tsx test/soak/load.ts [uploads] [sizeMb] [durationMs]` (needs `npm run build`).
 */
import { execFile } from 'node:child_process';
import { createHash, randomFillSync, type Hash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeAny, SEED_FORMATS, type SeedFormat } from '../../src/modules/seeds/formats/index.js';
import { putHeaders, rawUpload, startFerry, type Ferry } from '../fs/helpers.js';
import { requireCommand } from '../support/commands.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const ALGOS = ['md5', 'sha1', 'sha256'] as const;
type Algo = (typeof ALGOS)[number];
type Digests = Record<Algo, string>;

export interface LoadOptions {
  uploads: number;
  sizeMb: number;
  /** Least time autocannon keeps the API busy; it also runs for as long as the uploads do. */
  durationMs: number;
  /** Uploads still running after this are counted as errors and cut off (default 15 min). */
  uploadDeadlineMs?: number;
  log: (line: string) => void;
  /** autocannon connections (default 8). */
  connections?: number;
  /** Test hook: runs on the data dir's files folder after the uploads, before verification. */
  beforeVerify?: (filesDir: string) => Promise<void>;
}

export interface LoadReport {
  /** Uploads attempted + API requests completed. */
  operations: number;
  /** Failed uploads + API errors, timeouts and non-2xx replies. */
  errors: number;
  /** Stored files verified with coreutils (each against the bytes sent and its sidecars). */
  filesChecked: number;
  sidecarsChecked: number;
  /** Hash differences, missing files and missing or unreadable sidecars. */
  mismatches: number;
  /** Server event-loop delay p99 (ms) over the whole run; null when the server did not report it. */
  eventLoopP99Ms: number | null;
  eventLoop: Record<string, number> | null;
  uploadSeconds: number;
  uploadMiBps: number;
  apiRequests: number;
  apiLatencyP99Ms: number;
  problems: string[];
}

interface AutocannonResult {
  requests: { total: number };
  latency: { p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (opts: Record<string, unknown>) => PromiseLike<AutocannonResult> & { stop(): void };
// autocannon ships no types: load it through require with the little we use.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Uploads `size` random bytes to `name` with all sidecars; returns the digests of what was sent. */
async function upload(f: Ferry, name: string, size: number): Promise<{ digests: Digests; status: number | null; message: string }> {
  const hashes: Record<Algo, Hash> = { md5: createHash('md5'), sha1: createHash('sha1'), sha256: createHash('sha256') };
  const r = await rawUpload(f.url, {
    headers: putHeaders(f.token, `/load/${name}`, { 'Content-Length': size, 'X-Seed-Sidecars': 'oss,torrent,cas' }),
    body: {
      size,
      fill: (_offset: number, chunk: Buffer) => {
        randomFillSync(chunk);
        for (const a of ALGOS) hashes[a].update(chunk);
      },
    },
  });
  const digests = Object.fromEntries(ALGOS.map((a) => [a, hashes[a].digest('hex')])) as Digests;
  return { digests, status: r.status, message: r.json?.message ?? r.error?.message ?? r.body.slice(0, 200) };
}

/** md5sum / sha1sum / sha256sum of one file (run side by side). */
async function coreutils(path: string): Promise<Digests> {
  const out = await Promise.all(ALGOS.map((a) => run(`${a}sum`, ['--', path], { maxBuffer: 1024 * 1024 })));
  return Object.fromEntries(ALGOS.map((a, i) => [a, out[i]!.stdout.trim().split(/\s+/)[0]!.replace(/^\\/, '')])) as Digests;
}

/** Compares the stored file with the bytes sent and with each sidecar's whole hashes. */
async function verify(f: Ferry, name: string, sent: Digests, problems: string[]): Promise<{ mismatches: number; sidecars: number }> {
  const file = join(f.files, 'load', name);
  let mismatches = 0;
  const bad = (what: string) => {
    mismatches++;
    problems.push(`${name}: ${what}`);
  };
  if (!existsSync(file)) {
    bad('the file is missing');
    return { mismatches, sidecars: 0 };
  }
  const real = await coreutils(file);
  for (const a of ALGOS) if (real[a] !== sent[a]) bad(`${a}sum ${real[a]} differs from the ${a} of the bytes sent (${sent[a]})`);
  let sidecars = 0;
  for (const format of SEED_FORMATS) {
    const path = `${file}.${format}`;
    if (!existsSync(path)) {
      bad(`sidecar .${format} is missing`);
      continue;
    }
    let hashes: Partial<Digests>;
    try {
      const seed = decodeAny(readFileSync(path), { format: format as SeedFormat }).seed;
      const entry = seed.files.length === 1 ? seed.files[0] : seed.files.find((x) => x.path.endsWith(name));
      hashes = entry?.hashes ?? {};
    } catch (e) {
      bad(`sidecar .${format} does not decode: ${String(e)}`);
      continue;
    }
    sidecars++;
    const present = ALGOS.filter((a) => hashes[a]);
    if (present.length === 0) bad(`sidecar .${format} carries no whole-file hash`);
    for (const a of present) if (hashes[a]!.toLowerCase() !== real[a]) bad(`sidecar .${format} ${a} ${hashes[a]} ≠ ${a}sum ${real[a]}`);
  }
  return { mismatches, sidecars };
}

export async function runLoad(opts: LoadOptions): Promise<LoadReport> {
  for (const a of ALGOS) requireCommand(`${a}sum`, 'coreutils');
  const size = Math.round(opts.sizeMb * MiB);
  opts.log(`load: starting Ferry; ${opts.uploads} × ${opts.sizeMb} MiB uploads with oss,torrent,cas sidecars + autocannon for ${Math.round(opts.durationMs / 1000)} s`);
  const f = await startFerry({ FERRY_EVENT_LOOP_STATS: '1' });
  const problems: string[] = [];
  const report: LoadReport = {
    operations: 0,
    errors: 0,
    filesChecked: 0,
    sidecarsChecked: 0,
    mismatches: 0,
    eventLoopP99Ms: null,
    eventLoop: null,
    uploadSeconds: 0,
    uploadMiBps: 0,
    apiRequests: 0,
    apiLatencyP99Ms: 0,
    problems,
  };
  try {
    const mk = await f.call('POST', '/api/fs/mkdir', { path: '/load' });
    if (mk.status !== 200) throw new Error(`mkdir /load: ${mk.status} ${mk.body.message}`);
    const headers = { authorization: f.token, 'content-type': 'application/json' };
    const uploadDeadline = opts.uploadDeadlineMs ?? 15 * 60_000;
    const api = autocannon({
      url: f.url,
      connections: opts.connections ?? 8,
      // stopped explicitly once the uploads are done and durationMs has passed
      duration: Math.ceil((Math.max(opts.durationMs, uploadDeadline) + 60_000) / 1000),
      requests: [
        { method: 'GET', path: '/api/me', headers: { authorization: f.token } },
        { method: 'POST', path: '/api/fs/list', headers, body: JSON.stringify({ path: '/load' }) },
      ],
    });
    const started = Date.now();
    const names = Array.from({ length: opts.uploads }, (_, i) => `file-${String(i).padStart(3, '0')}.bin`);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((r) => (timer = setTimeout(() => r('deadline'), uploadDeadline)));
    const uploads = Promise.all(names.map((n) => upload(f, n, size)));
    const first = await Promise.race([uploads, deadline]);
    clearTimeout(timer);
    if (first === 'deadline') {
      // Cut the stragglers off: stopping the server ends their connections.
      problems.push(`uploads still running after ${uploadDeadline} ms`);
      await f.server.stop();
    }
    const sent = await uploads;
    report.uploadSeconds = (Date.now() - started) / 1000;
    report.uploadMiBps = Math.round(((opts.uploads * size) / MiB / report.uploadSeconds) * 10) / 10;
    opts.log(`load: ${opts.uploads} uploads done in ${report.uploadSeconds.toFixed(1)} s (${report.uploadMiBps} MiB/s)`);
    const rest = opts.durationMs - (Date.now() - started);
    if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    api.stop();
    const ac = await api;
    report.apiRequests = ac.requests.total;
    report.apiLatencyP99Ms = ac.latency.p99;
    const apiErrors = ac.errors + ac.timeouts + ac.non2xx;
    if (apiErrors > 0) problems.push(`API traffic: ${ac.errors} errors, ${ac.timeouts} timeouts, ${ac.non2xx} non-2xx`);
    opts.log(`load: autocannon ${ac.requests.total} requests, p99 ${ac.latency.p99} ms, ${apiErrors} errors`);

    let failed = 0;
    sent.forEach((s, i) => {
      if (s.status !== 200) {
        failed++;
        problems.push(`${names[i]}: upload answered ${s.status}: ${s.message}`);
      }
    });
    report.errors = failed + apiErrors;
    report.operations = opts.uploads + ac.requests.total;
    await opts.beforeVerify?.(f.files);
    // Verify a few files at a time (each runs three hashers side by side).
    for (let i = 0; i < names.length; i += 2) {
      const batch = names.slice(i, i + 2).map((n, j) => verify(f, n, sent[i + j]!.digests, problems));
      for (const v of await Promise.all(batch)) {
        report.filesChecked++;
        report.sidecarsChecked += v.sidecars;
        report.mismatches += v.mismatches;
      }
    }
    opts.log(`load: ${report.filesChecked} files and ${report.sidecarsChecked} sidecars checked with coreutils, ${report.mismatches} mismatch(es)`);
  } finally {
    await f.server.stop();
    const line = f.server
      .stdout()
      .split('\n')
      .find((l) => l.includes('event_loop_delay_ms'));
    if (line) {
      const stats = (JSON.parse(line) as { event_loop_delay_ms: Record<string, number> }).event_loop_delay_ms;
      report.eventLoop = stats;
      report.eventLoopP99Ms = stats.p99 ?? null;
      opts.log(`load: server event-loop delay p50 ${stats.p50} ms, p99 ${stats.p99} ms, max ${stats.max} ms`);
    } else {
      problems.push('the server did not log its event-loop delay (FERRY_EVENT_LOOP_STATS)');
    }
    await f.stop();
  }
  for (const p of problems.slice(0, 20)) opts.log(`load: PROBLEM ${p}`);
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [uploads = '20', sizeMb = '100', durationMs = '30000'] = process.argv.slice(2);
  const r = await runLoad({ uploads: Number(uploads), sizeMb: Number(sizeMb), durationMs: Number(durationMs), log: (l) => console.log(l) });
  console.log(JSON.stringify({ ...r, problems: r.problems.length }, null, 2));
  process.exit(r.errors === 0 && r.mismatches === 0 ? 0 : 1);
}
