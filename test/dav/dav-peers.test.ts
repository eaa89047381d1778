/**
 * WebDAV with real clients against an in-process Ferry listening on loopback, on both databases:
 * litmus (all five suites), rclone (webdav backend, vendor other and nextcloud: sync, check, a second sync
 * that transfers nothing), cadaver (scripted put/get/mkcol/move/delete) and curl (a chunked PUT with no
 * length as Finder sends it, with X-Expected-Entity-Length).
 */
import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { ADMIN_PASSWORD, forEachDialect, requireCommand, type Harness } from '../support/harness.js';
import { rcloneEnv, runClient } from './support.js';

const T = { timeout: 300_000 };

let work: string | null = null;
const scratch = () => (work ??= mkdtempSync(join(tmpdir(), 'ferry-dav-peers-')));
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Files in the synced tree (a few hundred bytes each), besides the one big file. */
const TREE_FILES = 1000;
/** The big file of the synced tree. */
const BIG_BYTES = 200 * 1024 * 1024 + 17;

/**
 * The tree the issue asks rclone to sync: 1,000 small files in nested folders (up to four deep) with
 * unicode and space names, an empty folder, and one 200 MB file. Made once per process and reused by
 * every vendor and dialect (its random content is written in 1 MB pieces).
 */
let tree: { root: string; files: Map<string, string> } | null = null;
function sourceTree(): { root: string; files: Map<string, string> } {
  if (tree) return tree;
  const root = join(scratch(), 'tree');
  const dirs = ['a b', 'a b/ünïcödé', 'a b/ünïcödé/deeper level', 'a b/ünïcödé/deeper level/4 中文', 'c/d/e', 'emoji 😀', 'spaces  twice ', 'Ωmega/ß'];
  for (const d of [...dirs, 'empty folder']) mkdirSync(join(root, d), { recursive: true });
  const files = new Map<string, string>();
  const names = ['ä', 'ß', '中', 'x', 'é è', '😀', 'a+b=c', '#hash', '%25'];
  for (let n = 0; n < TREE_FILES; n++) {
    const rel = join(dirs[n % dirs.length]!, `file ${n} ${names[n % names.length]}.bin`);
    const b = randomFillSync(Buffer.alloc(100 + ((n * 997) % 400)));
    writeFileSync(join(root, rel), b);
    files.set(rel, createHash('sha256').update(b).digest('hex'));
  }
  const big = createHash('sha256');
  const fd = openSync(join(root, 'big file.bin'), 'w');
  const piece = Buffer.alloc(1024 * 1024);
  for (let left = BIG_BYTES; left > 0; left -= piece.length) {
    const chunk = left >= piece.length ? randomFillSync(piece) : randomFillSync(Buffer.alloc(left));
    writeSync(fd, chunk);
    big.update(chunk);
  }
  closeSync(fd);
  files.set('big file.bin', big.digest('hex'));
  return (tree = { root, files });
}

/** Every file below `root` by relative path → sha256 (read in pieces: the big file is 200 MB). */
async function filesOf(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else {
        const h = createHash('sha256');
        for await (const c of createReadStream(p)) h.update(c as Buffer);
        out.set(relative(root, p), h.digest('hex'));
      }
    }
  };
  await walk(root);
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
    const r = await runClient('litmus', [url, 'admin', ADMIN_PASSWORD], { cwd, env: { TESTS: 'basic copymove props locks http' } });
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

  for (const vendor of ['other', 'nextcloud'] as const) {
    test(`rclone (vendor ${vendor}): sync 1,000 files in nested unicode folders and a 200 MB file, check, and a second sync transfers nothing`, T, async (t) => {
      requireCommand('rclone', 'rclone');
      let t0 = Date.now();
      const phases: string[] = [];
      const phase = (name: string) => {
        phases.push(`${name} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        t0 = Date.now();
      };
      const src = sourceTree();
      phase('tree');
      const env = await rcloneEnv(url, vendor, scratch());
      const opts = ['--transfers', '4', '--checkers', '8'];
      const remote = `d:synced-${vendor}`;
      const first = await runClient('rclone', ['sync', src.root, remote, ...opts, '-v', '--create-empty-src-dirs'], { env });
      assert.equal(first.status, 0, first.out.slice(-4000));
      phase('sync');
      const storedRoot = join(files(), `synced-${vendor}`);
      const stored = await filesOf(storedRoot);
      phase('compare');
      assert.equal(stored.size, TREE_FILES + 1);
      assert.deepEqual([...stored.entries()].sort(), [...src.files.entries()].sort());
      assert.ok(statSync(join(storedRoot, 'empty folder')).isDirectory());
      // nextcloud: SHA-1 from oc:checksums (the digest each PUT declared, checked and recorded by Ferry); other: sizes
      // (owncloud compares MD5: test/dav/dav-rclone-hashes.test.ts)
      const check = await runClient('rclone', ['check', src.root, remote, ...opts, '-v'], { env });
      assert.equal(check.status, 0, check.out.slice(-4000));
      phase('check');
      assert.match(check.out, /0 differences found/);
      assert.match(check.out, new RegExp(`${TREE_FILES + 1} matching files`));
      if (vendor === 'nextcloud') {
        assert.match(check.out, /Using sha1 for hash comparisons/);
        assert.doesNotMatch(check.out, /hashes could not be checked/, check.out);
      }
      const second = await runClient('rclone', ['sync', src.root, remote, ...opts, '-v', '--create-empty-src-dirs'], { env });
      assert.equal(second.status, 0, second.out.slice(-4000));
      phase('second sync');
      t.diagnostic(phases.join(', '));
      assert.doesNotMatch(second.out, /Copied|Updated/, second.out.slice(-4000));
      assert.match(second.out, /Transferred:\s+0 B \/ 0 B/);
    });
  }

  test('cadaver: mkcol, put, get, move, ls, delete, rmcol from a script', T, async () => {
    requireCommand('cadaver', 'cadaver');
    const home = mkdtempSync(join(scratch(), 'cadaver-'));
    writeFileSync(join(home, '.netrc'), `machine 127.0.0.1\nlogin admin\npassword ${ADMIN_PASSWORD}\n`, { mode: 0o600 });
    writeFileSync(join(home, 'local.txt'), 'from cadaver\n');
    const script = ['mkcol cdir', 'cd cdir', 'put local.txt remote.txt', 'get remote.txt back.txt', 'move remote.txt moved.txt', 'ls', 'quit', ''].join('\n');
    const r = await runClient('cadaver', [url], { cwd: home, env: { HOME: home }, input: script, timeout: 60_000 });
    assert.equal(r.status, 0, r.out);
    assert.doesNotMatch(r.out, /failed/i, r.out);
    assert.equal(readFileSync(join(home, 'back.txt'), 'utf8'), 'from cadaver\n');
    assert.equal(readFileSync(join(files(), 'cdir', 'moved.txt'), 'utf8'), 'from cadaver\n');
    assert.match(r.out, /moved\.txt\s+13/);
    const r2 = await runClient('cadaver', [url], { cwd: home, env: { HOME: home }, input: 'delete cdir/moved.txt\nrmcol cdir\nquit\n', timeout: 60_000 });
    assert.equal(r2.status, 0, r2.out);
    assert.doesNotMatch(r2.out, /failed/i, r2.out);
    assert.throws(() => statSync(join(files(), 'cdir')));
  });

  test('curl: a chunked PUT without Content-Length (as Finder sends) and one with X-Expected-Entity-Length', T, async () => {
    const payload = randomFillSync(Buffer.alloc(2 * 1024 * 1024 + 5));
    const file = join(scratch(), 'chunked.bin');
    writeFileSync(file, payload);
    const auth = `admin:${ADMIN_PASSWORD}`;
    const a = await runClient('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-u', auth, '-H', 'Transfer-Encoding: chunked', '-T', '-', `${url}chunked.bin`], { input: payload });
    assert.equal(a.out, '201');
    assert.ok(readFileSync(join(files(), 'chunked.bin')).equals(payload));
    const b = await runClient('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-u', auth, '-H', 'Transfer-Encoding: chunked', '-H', `X-Expected-Entity-Length: ${payload.length}`, '-T', file, `${url}expected.bin`]);
    assert.equal(b.out, '201');
    assert.ok(readFileSync(join(files(), 'expected.bin')).equals(payload));
    const short = await runClient('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-u', auth, '-H', 'Transfer-Encoding: chunked', '-H', `X-Expected-Entity-Length: ${payload.length + 1}`, '-T', file, `${url}short.bin`]);
    assert.equal(short.out, '400');
    assert.throws(() => statSync(join(files(), 'short.bin')));
  });
});
