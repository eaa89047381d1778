/**
 * WebDAV with real clients against an in-process Ferry listening on loopback, on both databases:
 * litmus (all five suites), rclone (webdav backend, vendor other and owncloud: sync, check, a second sync
 * that transfers nothing), cadaver (scripted put/get/mkcol/move/delete) and curl (a chunked PUT with no
 * length as Finder sends it, with X-Expected-Entity-Length).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { ADMIN_PASSWORD, forEachDialect, requireCommand, type Harness } from '../support/harness.js';

const T = { timeout: 300_000 };

let work: string | null = null;
const scratch = () => (work ??= mkdtempSync(join(tmpdir(), 'ferry-dav-peers-')));
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * Runs a client and collects its output. Asynchronous: the Ferry under test lives in this process, so a
 * synchronous spawn would stop it from answering.
 */
function sh(cmd: string, args: string[], o: { cwd?: string; env?: Record<string, string>; input?: string | Buffer; timeout?: number } = {}): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: o.cwd, env: { ...process.env, ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeout ?? 240_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.input ?? '');
  });
}

/** A small nested tree with unicode and space names and one larger file. */
function makeTree(root: string): void {
  const dirs = ['a b', 'a b/ünïcödé', 'c/d/e', 'emoji 😀', 'empty folder'];
  for (const d of dirs) mkdirSync(join(root, d), { recursive: true });
  let n = 0;
  for (const d of dirs.slice(0, 4)) {
    for (let i = 0; i < 6; i++) {
      const b = Buffer.alloc(100 + ((n * 997) % 5000));
      writeFileSync(join(root, d, `file ${i} ${['ä', 'ß', '中', 'x'][i % 4]}.bin`), randomFillSync(b));
      n++;
    }
  }
  writeFileSync(join(root, 'big file.bin'), randomFillSync(Buffer.alloc(3 * 1024 * 1024 + 17)));
}

function filesOf(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(root, p), createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(root);
  return out;
}

forEachDialect('webdav with real clients', (h: () => Harness) => {
  let url = '';
  const files = () => join(h().dataDir, 'files');
  before(async () => {
    await h().app.listen({ host: '127.0.0.1', port: 0 });
    const addr = h().app.server.address();
    assert.ok(addr && typeof addr === 'object');
    url = `http://127.0.0.1:${addr.port}/dav/`;
  });

  test('litmus: basic, copymove, props, locks and http all pass, no warnings', T, async () => {
    requireCommand('litmus', 'litmus');
    const cwd = mkdtempSync(join(scratch(), 'litmus-'));
    const r = await sh('litmus', [url, 'admin', ADMIN_PASSWORD], { cwd, env: { TESTS: 'basic copymove props locks http' } });
    const summaries = [...r.out.matchAll(/summary for `(\w+)': of (\d+) tests run: (\d+) passed, (\d+) failed/g)];
    assert.deepEqual(
      summaries.map((m) => m[1]),
      ['basic', 'copymove', 'props', 'locks', 'http'],
      r.out,
    );
    for (const m of summaries) assert.equal(m[4], '0', `${m[1]}: ${r.out}`);
    assert.doesNotMatch(r.out, /WARNING/, r.out);
    assert.equal(r.status, 0, r.out);
  });

  for (const vendor of ['other', 'owncloud'] as const) {
    test(`rclone (vendor ${vendor}): sync a nested unicode tree, check, and a second sync transfers nothing`, T, async () => {
      requireCommand('rclone', 'rclone');
      const src = join(scratch(), `tree-${vendor}`);
      makeTree(src);
      const env = {
        RCLONE_CONFIG_D_TYPE: 'webdav',
        RCLONE_CONFIG_D_URL: url,
        RCLONE_CONFIG_D_VENDOR: vendor,
        RCLONE_CONFIG_D_USER: 'admin',
        RCLONE_CONFIG_D_PASS: (await sh('rclone', ['obscure', ADMIN_PASSWORD])).out.trim(),
        RCLONE_CONFIG: join(scratch(), 'rclone.conf'),
      };
      const remote = `d:synced-${vendor}`;
      const first = await sh('rclone', ['sync', src, remote, '-v'], { env });
      assert.equal(first.status, 0, first.out);
      const stored = filesOf(join(files(), `synced-${vendor}`));
      assert.deepEqual([...stored.entries()].sort(), [...filesOf(src).entries()].sort());
      const check = await sh('rclone', ['check', src, remote], { env });
      assert.equal(check.status, 0, check.out);
      assert.match(check.out, /0 differences found/);
      if (vendor === 'owncloud') assert.doesNotMatch(check.out, /hashes could not be checked/, check.out);
      const second = await sh('rclone', ['sync', src, remote, '-v'], { env });
      assert.equal(second.status, 0, second.out);
      assert.doesNotMatch(second.out, /Copied|Updated/, second.out);
      assert.match(second.out, /Transferred:\s+0 B \/ 0 B/);
    });
  }

  test('cadaver: mkcol, put, get, move, ls, delete, rmcol from a script', T, async () => {
    requireCommand('cadaver', 'cadaver');
    const home = mkdtempSync(join(scratch(), 'cadaver-'));
    writeFileSync(join(home, '.netrc'), `machine 127.0.0.1\nlogin admin\npassword ${ADMIN_PASSWORD}\n`, { mode: 0o600 });
    writeFileSync(join(home, 'local.txt'), 'from cadaver\n');
    const script = ['mkcol cdir', 'cd cdir', 'put local.txt remote.txt', 'get remote.txt back.txt', 'move remote.txt moved.txt', 'ls', 'quit', ''].join('\n');
    const r = await sh('cadaver', [url], { cwd: home, env: { HOME: home }, input: script, timeout: 60_000 });
    assert.equal(r.status, 0, r.out);
    assert.doesNotMatch(r.out, /failed/i, r.out);
    assert.equal(readFileSync(join(home, 'back.txt'), 'utf8'), 'from cadaver\n');
    assert.equal(readFileSync(join(files(), 'cdir', 'moved.txt'), 'utf8'), 'from cadaver\n');
    assert.match(r.out, /moved\.txt\s+13/);
    const r2 = await sh('cadaver', [url], { cwd: home, env: { HOME: home }, input: 'delete cdir/moved.txt\nrmcol cdir\nquit\n', timeout: 60_000 });
    assert.equal(r2.status, 0, r2.out);
    assert.doesNotMatch(r2.out, /failed/i, r2.out);
    assert.throws(() => statSync(join(files(), 'cdir')));
  });

  test('curl: a chunked PUT without Content-Length (as Finder sends) and one with X-Expected-Entity-Length', T, async () => {
    const payload = randomFillSync(Buffer.alloc(2 * 1024 * 1024 + 5));
    const file = join(scratch(), 'chunked.bin');
    writeFileSync(file, payload);
    const auth = `admin:${ADMIN_PASSWORD}`;
    const a = await sh('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-u', auth, '-H', 'Transfer-Encoding: chunked', '-T', '-', `${url}chunked.bin`], { input: payload });
    assert.equal(a.out, '201');
    assert.ok(readFileSync(join(files(), 'chunked.bin')).equals(payload));
    const b = await sh('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-u', auth, '-H', 'Transfer-Encoding: chunked', '-H', `X-Expected-Entity-Length: ${payload.length}`, '-T', file, `${url}expected.bin`]);
    assert.equal(b.out, '201');
    assert.ok(readFileSync(join(files(), 'expected.bin')).equals(payload));
    const short = await sh('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-u', auth, '-H', 'Transfer-Encoding: chunked', '-H', `X-Expected-Entity-Length: ${payload.length + 1}`, '-T', file, `${url}short.bin`]);
    assert.equal(short.out, '400');
    assert.throws(() => statSync(join(files(), 'short.bin')));
  });
});
