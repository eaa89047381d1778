// What each `hash_on_write` choice costs an upload (issue #17; README "Why SHA-256 alone by
// default"). One BUILT server, one local storage per choice; `size` uploads with `curl -T`,
// alternating over the choices --repeat times (an untimed `sync` before each). Per choice: the
// median wall time and the median CPU the server process spent (all its threads, from
// /proc/<pid>/stat), and that of its main thread alone. First, each digest's CPU cost per GiB on
// this machine (node:crypto, 1 MiB updates, best of 3).
//
//   npm run build && npm run bench -- hash-on-write [--size 1GiB] [--repeat 3]
//                                                   [--choices none,sha256,sha1+sha256,md5,md5+sha256,md5+sha1+sha256]
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startServer } from '../test/support/process.js';
import { GiB, MiB, haveTool, parseArgs, parseBytes, printTable, runTool, timeIt, writeRandomFile } from './lib.js';

export const describe = 'upload cost (wall, server CPU) of each hash_on_write choice, and each digest’s CPU per GiB';

const PASSWORD = 'bench-admin-pass';
const DEFAULT_CHOICES = 'none,sha256,sha1+sha256,md5,md5+sha256,md5+sha1+sha256';

/** user+system CPU seconds of a process (or one of its threads) so far. */
async function cpuSeconds(statPath: string): Promise<number> {
  const f = (await readFile(statPath, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function digestCosts(): string[][] {
  const buf = Buffer.alloc(MiB, 0x5a);
  return (['md5', 'sha1', 'sha256'] as const).map((alg) => {
    let best = Infinity;
    for (let round = 0; round < 3; round++) {
      const c0 = process.cpuUsage();
      const h = createHash(alg);
      for (let i = 0; i < 256; i++) h.update(buf);
      h.digest();
      const c = process.cpuUsage(c0);
      best = Math.min(best, ((c.user + c.system) / 1e6) * 4); // 256 MiB → per GiB
    }
    return [alg, best.toFixed(2)];
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { size: 'value', repeat: 'value', choices: 'value' });
  const size = parseBytes(String(opt.size ?? '1GiB'));
  const repeat = Number(opt.repeat ?? 3);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) throw new Error('--repeat must be an integer from 1 to 20');
  const choices = String(opt.choices ?? DEFAULT_CHOICES).split(',').map((c) => c.trim()).filter(Boolean);
  const values = choices.map((c) => (c === 'none' ? '' : c.replace(/\+/g, ',')));
  if (!haveTool('curl')) throw new Error('missing: curl. Install with: apt-get install -y curl');

  console.log('CPU seconds per GiB of each digest on this machine (node:crypto, best of 3):');
  printTable(['digest', 'CPU s/GiB'], digestCosts());

  const dir = await mkdtemp(join(tmpdir(), 'ferry-bench-how-'));
  const src = join(dir, 'source.bin');
  await writeRandomFile(src, size);
  const server = await startServer({ FERRY_DATA_DIR: join(dir, 'data'), FERRY_ADMIN_PASSWORD: PASSWORD });
  try {
    const pid = server.child.pid!;
    const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: PASSWORD } });
    if (login.status !== 200) throw new Error(`login failed: ${login.body.message}`);
    const token = login.body.data.token as string;
    const mounts: string[] = [];
    for (const [i, value] of values.entries()) {
      const root = join(dir, `root${i}`);
      await mkdir(root);
      const r = await api(server.url, 'POST', '/api/admin/storage/create', { token, body: { mount_path: `/how${i}`, driver: 'local', addition: { root_folder_path: root, hash_on_write: value } } });
      if (r.body.code !== 200) throw new Error(`storage ${choices[i]}: ${r.body.message}`);
      mounts.push(`/how${i}`);
    }
    const runs = choices.map(() => [] as { wall: number; cpu: number; main: number }[]);
    for (let round = 1; round <= repeat; round++) {
      for (const [i, mount] of mounts.entries()) {
        await runTool('sync', []);
        const [c0, m0] = [await cpuSeconds(`/proc/${pid}/stat`), await cpuSeconds(`/proc/${pid}/task/${pid}/stat`)];
        let status = '';
        const wall = await timeIt(async () => {
          const r = await runTool('curl', ['-sS', '--noproxy', '*', '-H', 'Expect:', '-T', src, '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: ${token}`, '-H', `File-Path: ${mount}/f.bin`, `${server.url}/api/fs/put`]);
          status = r.stdout.trim();
        });
        if (status !== '200') throw new Error(`upload to ${mount} answered HTTP ${status}`);
        const cpu = (await cpuSeconds(`/proc/${pid}/stat`)) - c0;
        const main = (await cpuSeconds(`/proc/${pid}/task/${pid}/stat`)) - m0;
        runs[i]!.push({ wall, cpu, main });
        console.log(`  #${round} ${choices[i]!.padEnd(16)} ${wall.toFixed(2)} s, server CPU ${cpu.toFixed(2)} s (main thread ${main.toFixed(2)} s), load ${loadavg()[0]!.toFixed(1)}`);
        await api(server.url, 'POST', '/api/fs/remove', { token, body: { dir: mount, names: ['f.bin'] } });
      }
    }
    const gib = size / GiB;
    console.log(`\n${(size / GiB).toFixed(2)} GiB uploads, medians of ${repeat}; load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const base = median(runs[0]!.map((r) => r.wall));
    printTable(
      ['hash_on_write', 'wall s', `wall / ${choices[0]}`, 'server CPU s/GiB', 'main thread CPU s/GiB'],
      choices.map((c, i) => {
        const w = median(runs[i]!.map((r) => r.wall));
        return [c, w.toFixed(2), `${(w / base).toFixed(2)}×`, (median(runs[i]!.map((r) => r.cpu)) / gib).toFixed(2), (median(runs[i]!.map((r) => r.main)) / gib).toFixed(2)];
      }),
    );
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
