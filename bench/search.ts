// Search: a generated tree on the default local storage of the BUILT server, indexed by Ferry (POST
// /api/admin/index/build, a task) and by Debian's `updatedb.plocate` over the same folder; then the same
// substring queries (each matching ≤ 100 names) through POST /api/fs/search and through `plocate`; then searches
// again while `--connections` clients keep GET /api/me and POST /api/fs/list coming. Reports build times, query
// p50/p99, search and /api/me p99 under that load, the server's peak RSS during the build, and the ratios.
//
//   npm run build && npm run bench -- search [--files 100000] [--folders 1000] [--queries 50] [--connections 100]
//                                            [--load-queries 200] [--database-url postgres://…]
//
// The size is `--files 1000000 --folders 10000` (or FERRY_BENCH_SEARCH_FILES / _FOLDERS).
// Targets (issue #20): build ≤ 2× updatedb.plocate, query p50 ≤ 3× plocate, search p99 under load
// ≤ max(50 ms, /api/me p99 + 10 ms), peak RSS ≤ 250 MB.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startServer } from '../test/support/process.js';
import { cpuSeconds, haveTool, parseArgs, printTable, rssBytes, runTool, timeIt } from './lib.js';

export const describe = 'index build and substring query p50 vs updatedb.plocate/plocate over one generated tree; peak RSS';

const PASSWORD = 'bench-admin-pass';
/** Distinct words; each file name carries one, so a word matches about files / WORDS names. */
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** A deterministic 7-letter pseudo-word for `i` (no digits, so folder names never contain one). */
function word(i: number): string {
  let x = (i * 2654435761) >>> 0;
  let s = 'q';
  for (let k = 0; k < 6; k++) {
    s += LETTERS[x % 26];
    x = Math.floor(x / 26) + ((k + 1) * 7919 + i);
  }
  return s;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

async function generate(root: string, files: number, folders: number, words: number): Promise<void> {
  const perFolder = Math.ceil(files / folders);
  let n = 0;
  for (let d = 0; d < folders && n < files; d++) {
    const dir = join(root, `g${String(Math.floor(d / 100)).padStart(3, '0')}`, `d${String(d).padStart(5, '0')}`);
    await mkdir(dir, { recursive: true });
    const batch: Promise<void>[] = [];
    for (let k = 0; k < perFolder && n < files; k++, n++) batch.push(writeFile(join(dir, `file-${n}-${word(n % words)}.dat`), ''));
    await Promise.all(batch);
  }
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/**
 * `connections` clients each keep one request in flight (even ones GET /api/me, odd ones POST /api/fs/list of
 * a 100-file folder) while one more client runs `keywords` searches one after another; latencies of the
 * searches and of the /api/me requests made meanwhile.
 */
async function underLoad(url: string, token: string, connections: number, keywords: string[]): Promise<{ search: number[]; me: number[]; lists: number }> {
  let stop = false;
  let measuring = false;
  const me: number[] = [];
  let lists = 0;
  const listPath = '/g000/d00000';
  const clients = Array.from({ length: connections }, async (_, i) => {
    while (!stop) {
      const t0 = process.hrtime.bigint();
      const r = i % 2 === 0 ? await api(url, 'GET', '/api/me', { token }) : await api(url, 'POST', '/api/fs/list', { token, body: { path: listPath } });
      if (r.status !== 200) throw new Error(`load request: ${r.status} ${r.body.message}`);
      if (!measuring) continue;
      if (i % 2 === 0) me.push(ms(t0));
      else lists++;
    }
  });
  const search: number[] = [];
  try {
    await new Promise((r) => setTimeout(r, 1000)); // every client connected and busy
    measuring = true;
    for (const w of keywords) {
      const t0 = process.hrtime.bigint();
      const r = await api(url, 'POST', '/api/fs/search', { token, body: { parent: '/', keywords: w, page: 1, per_page: 100 } });
      search.push(ms(t0));
      if (r.status !== 200) throw new Error(`search: ${r.body.message}`);
    }
    measuring = false;
  } finally {
    stop = true;
    await Promise.all(clients);
  }
  return { search, me, lists };
}

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { files: 'value', folders: 'value', queries: 'value', connections: 'value', 'load-queries': 'value', 'database-url': 'value' });
  const files = Number(opt.files ?? process.env.FERRY_BENCH_SEARCH_FILES ?? 100_000);
  const folders = Number(opt.folders ?? process.env.FERRY_BENCH_SEARCH_FOLDERS ?? 1_000);
  const queries = Number(opt.queries ?? 50);
  const connections = Number(opt.connections ?? 100);
  const loadQueries = Number(opt['load-queries'] ?? 200);
  // about 50 names per word: a query returns ≤ 100 results
  const words = Math.max(1, Math.floor(files / 50));
  for (const t of ['updatedb.plocate', 'plocate']) if (!haveTool(t)) throw new Error(`${t} is needed (Debian: apt-get install plocate)`);

  const work = await mkdtemp(join(tmpdir(), 'ferry-bench-search-'));
  const data = join(work, 'data');
  const tree = join(data, 'files');
  try {
    const genSecs = await timeIt(() => generate(tree, files, folders, words));
    console.log(`generated ${files} files in ${folders} folders under ${tree} in ${genSecs.toFixed(1)} s`);

    const db = join(work, 'plocate.db');
    const locateBuild = await timeIt(async () => {
      const r = await runTool('updatedb.plocate', ['-l', '0', '-U', tree, '-o', db]);
      if (r.code !== 0) throw new Error(`updatedb.plocate: ${r.stderr}`);
    });

    const env: Record<string, string> = { FERRY_DATA_DIR: data, FERRY_ADMIN_PASSWORD: PASSWORD };
    if (typeof opt['database-url'] === 'string') env.FERRY_DATABASE_URL = opt['database-url'];
    const server = await startServer(env);
    const pid = server.child.pid!;
    try {
      const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: PASSWORD } });
      if (login.status !== 200) throw new Error(`login failed: ${login.body.message}`);
      const token = login.body.data.token as string;
      // the start-up cleanup walks the whole storage once in the background: let it end, so the build is timed alone
      for (let i = 0; i < 6000 && !server.stdout().includes('startup cleanup done'); i++) await new Promise((r) => setTimeout(r, 100));
      // depth: g*/d*/file = 3 levels
      let peak = await rssBytes(pid);
      const sampler = setInterval(() => void rssBytes(pid).then((r) => (peak = Math.max(peak, r)), () => undefined), 100);
      let objects = 0;
      const cpu0 = await cpuSeconds(pid);
      const ferryBuild = await timeIt(async () => {
        const b = await api(server.url, 'POST', '/api/admin/index/build', { token, body: { paths: ['/'] } });
        if (b.status !== 200) throw new Error(`build: ${b.body.message}`);
        for (;;) {
          await new Promise((r) => setTimeout(r, 100));
          const p = await api(server.url, 'GET', '/api/admin/index/progress', { token });
          if (p.body.data.is_done) {
            if (p.body.data.error) throw new Error(`build failed: ${p.body.data.error}`);
            objects = p.body.data.obj_count as number;
            break;
          }
        }
      }).finally(() => clearInterval(sampler));
      const hwm = await rssBytes(pid, 'VmHWM');
      const buildCpu = (await cpuSeconds(pid)) - cpu0;

      const ferryTimes: number[] = [];
      const locateTimes: number[] = [];
      let checked = 0;
      for (let q = 0; q < queries; q++) {
        const w = word((q * 7919) % words).slice(1, 6);
        const t0 = process.hrtime.bigint();
        const r = await api(server.url, 'POST', '/api/fs/search', { token, body: { parent: '/', keywords: w, page: 1, per_page: 100 } });
        ferryTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (r.status !== 200) throw new Error(`search: ${r.body.message}`);
        const t1 = process.hrtime.bigint();
        const l = await runTool('plocate', ['-d', db, w]);
        locateTimes.push(Number(process.hrtime.bigint() - t1) / 1e6);
        const located = l.stdout.split('\n').filter((s) => s && s.slice(s.lastIndexOf('/') + 1).includes(w)).length;
        if (r.body.data.total !== located) throw new Error(`query ${w}: Ferry found ${r.body.data.total}, plocate ${located} names`);
        checked += located;
      }
      const load = await underLoad(server.url, token, connections, Array.from({ length: loadQueries }, (_, q) => word((q * 104729) % words).slice(1, 6)));
      const fp50 = percentile(ferryTimes, 50);
      const lp50 = percentile(locateTimes, 50);
      console.log(`\n${objects} objects indexed; ${queries} queries, ${checked} results in all (same totals from both)`);
      console.log(`under load: ${connections} clients (GET /api/me, POST /api/fs/list), ${load.search.length} searches, ${load.me.length} /api/me, ${load.lists} lists`);
      printTable(
        ['measure', 'Ferry', 'plocate', 'ratio', 'target'],
        [
          ['build (s)', ferryBuild.toFixed(2), locateBuild.toFixed(2), (ferryBuild / locateBuild).toFixed(2), '≤ 2'],
          ['server CPU during build (s)', buildCpu.toFixed(2), '', '', ''],
          ['query p50 (ms)', fp50.toFixed(2), lp50.toFixed(2), (fp50 / lp50).toFixed(2), '≤ 3'],
          ['query p99 (ms)', percentile(ferryTimes, 99).toFixed(2), percentile(locateTimes, 99).toFixed(2), '', ''],
          ['peak RSS during build (MB)', (peak / 1e6).toFixed(1), '', '', '≤ 250'],
          ['VmHWM after build (MB)', (hwm / 1e6).toFixed(1), '', '', ''],
          [`search p50 under load (ms)`, percentile(load.search, 50).toFixed(2), '', '', ''],
          [`search p99 under load (ms)`, percentile(load.search, 99).toFixed(2), '', '', `≤ ${Math.max(50, percentile(load.me, 99) + 10).toFixed(2)}`],
          [`GET /api/me p50/p99 under load (ms)`, `${percentile(load.me, 50).toFixed(2)}/${percentile(load.me, 99).toFixed(2)}`, '', '', ''],
        ],
      );
    } finally {
      await server.stop();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
