// SFTP vs HTTP transfer benchmark against the BUILT server (`npm run build` first).
//
//   npm run bench -- sftp [--size 1GiB] [--repeat 1] [--no-verify] [--keep DIR]
//
// Starts `node dist/src/app/bin.js serve` on a fresh data dir (SQLite, local storage) with
// FERRY_SFTP_LISTEN, then moves one random file each way:
//   SFTP: OpenSSH `sftp -b` put and get (default buffer and request counts, ed25519 key);
//   HTTP: `curl -T` (PUT /api/fs/put with File-Path) and `curl` GET /d/<path>?sign=… (fs/get's raw_url).
// Prints seconds and MB/s (1 MB = 10^6 bytes) per transfer, and SFTP/HTTP ratios. With
// --repeat N each transfer runs N times, interleaved, and the best run counts (shared machine).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, requireBuild, startServer } from '../test/support/process.js';
import { GiB, haveTool, parseArgs, parseBytes, printTable, runTool, timeIt, writeRandomFile } from './lib.js';

export const describe = '1 GiB put and get: OpenSSH sftp vs curl over HTTP (built server)';

async function sha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const c of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(c as Buffer);
  return h.digest('hex');
}

async function mustRun(cmd: string, args: string[], what: string): Promise<void> {
  const r = await runTool(cmd, args);
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${r.stderr || r.stdout}`);
}

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { size: 'value', repeat: 'value', 'no-verify': 'flag', keep: 'value' });
  const size = parseBytes(typeof opt.size === 'string' ? opt.size : '1GiB');
  const repeat = Math.max(1, Number(opt.repeat ?? 1));
  for (const [tool, pkg] of [['sftp', 'openssh-client'], ['ssh-keygen', 'openssh-client'], ['curl', 'curl']] as const) {
    if (!haveTool(tool)) throw new Error(`${tool} is not installed: apt-get install -y ${pkg}`);
  }
  requireBuild();
  const dir = typeof opt.keep === 'string' ? opt.keep : await mkdtemp(join(tmpdir(), 'ferry-bench-sftp-'));
  const src = join(dir, 'source.bin');
  const dataDir = join(dir, 'data');
  const password = 'bench-admin-password';
  console.log(`sftp benchmark: ${(size / GiB).toFixed(2)} GiB file in ${dir}, ${repeat} round(s), best of each`);
  console.log(`cores: ${availableParallelism()}, load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await writeRandomFile(src, size);
  await mustRun('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'key')], 'ssh-keygen');

  const server = await startServer({
    FERRY_DATA_DIR: dataDir,
    FERRY_ADMIN_PASSWORD: password,
    FERRY_SFTP_LISTEN: '127.0.0.1:0',
    FERRY_LOG_LEVEL: 'info',
  });
  try {
    const m = /"sftp":"[^"]*:(\d+)"/.exec(server.stdout());
    if (!m) throw new Error(`the server did not report its SFTP port:\n${server.stdout()}`);
    const port = m[1]!;
    const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password } });
    if (login.status !== 200) throw new Error(`login failed: ${login.body.message}`);
    const token = login.body.data.token as string;
    const add = await api(server.url, 'POST', '/api/me/sshkey/add', { token, body: { title: 'bench', key: await readFile(join(dir, 'key.pub'), 'utf8') } });
    if (add.status !== 200) throw new Error(`adding the key failed: ${add.body.message}`);

    const sftpArgs = ['-q', '-P', port, '-i', join(dir, 'key'), '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR'];
    const sftp = async (cmd: string) => {
      const batch = join(dir, 'batch');
      await writeFile(batch, `${cmd}\nbye\n`);
      await mustRun('sftp', ['-b', batch, ...sftpArgs, 'admin@127.0.0.1'], `sftp ${cmd}`);
    };
    const curl = (extra: string[]) => mustRun('curl', ['-sS', '-f', '--noproxy', '*', ...extra], `curl ${extra.join(' ')}`);
    const out = join(dir, 'download.bin');
    const stored = (name: string) => join(dataDir, 'files', name);
    // The signed link Ferry hands out (sign_all is on by default); fetched once, after the first HTTP put.
    let httpGetUrl: string | undefined;
    const signedHttpUrl = async () => {
      const got = await api(server.url, 'POST', '/api/fs/get', { token, body: { path: '/http.bin' } });
      if (got.status !== 200) throw new Error(`fs/get /http.bin failed: ${got.body.message}`);
      return String(got.body.data.raw_url);
    };

    const transfers: Array<[string, () => Promise<unknown>, string]> = [
      ['SFTP put', () => sftp(`put ${src} /sftp.bin`), stored('sftp.bin')],
      ['HTTP put', () => curl(['-T', src, '-H', 'Expect:', '-H', `Authorization: ${token}`, '-H', 'File-Path: %2Fhttp.bin', `${server.url}/api/fs/put`, '-o', '/dev/null']), stored('http.bin')],
      ['SFTP get', () => sftp(`get /sftp.bin ${out}`), out],
      ['HTTP get', async () => curl(['-o', out, (httpGetUrl ??= await signedHttpUrl())]), out],
    ];
    const best = new Map<string, number>();
    const want = opt['no-verify'] ? null : await sha256(src);
    for (let round = 0; round < repeat; round++) {
      for (const [name, fn, result] of transfers) {
        await rm(out, { force: true });
        const secs = await timeIt(fn);
        const st = await stat(result);
        if (st.size !== size) throw new Error(`${name}: ${result} has ${st.size} bytes, expected ${size}`);
        if (want && (await sha256(result)) !== want) throw new Error(`${name}: the bytes differ`);
        best.set(name, Math.min(best.get(name) ?? Infinity, secs));
        console.log(`  round ${round + 1}: ${name.padEnd(8)} ${secs.toFixed(2)} s`);
      }
    }
    const mb = size / 1e6;
    const row = (n: string) => [n, best.get(n)!.toFixed(2), (mb / best.get(n)!).toFixed(1)];
    console.log('');
    printTable(['transfer', 'seconds', 'MB/s'], ['SFTP put', 'HTTP put', 'SFTP get', 'HTTP get'].map(row));
    console.log('');
    const ratio = (a: string, b: string) => (best.get(a)! / best.get(b)!).toFixed(2);
    console.log(`SFTP/HTTP time ratio: put ${ratio('SFTP put', 'HTTP put')}x, get ${ratio('SFTP get', 'HTTP get')}x (above 1 = SFTP slower)`);
    console.log(`SFTP throughput as a share of HTTP: put ${((best.get('HTTP put')! / best.get('SFTP put')!) * 100).toFixed(0)}%, get ${((best.get('HTTP get')! / best.get('SFTP get')!) * 100).toFixed(0)}%`);
    console.log(want ? 'every transfer verified (size and SHA-256)' : 'sizes verified (--no-verify: hashes skipped)');
  } finally {
    await server.stop();
    if (typeof opt.keep !== 'string') await rm(dir, { recursive: true, force: true });
  }
}
