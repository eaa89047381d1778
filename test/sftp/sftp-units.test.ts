/**
 * The SFTP server's small parts, without a network: host-key files (read back by
 * ssh-keygen and ssh2), REALPATH resolution, `ls -l` long names, error → status mapping,
 * the per-handle range reader (one stream for sequential reads, reopened on a jump), and the
 * upload of a write handle (pipelined and out-of-order WRITEs, back-pressure, failures).
 * No database is involved here.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import ssh2 from 'ssh2';
import { AppError } from '../../src/lib/errors.js';
import { UnsafePathError } from '../../src/lib/path-safety.js';
import { ed25519ToOpenSsh, loadHostKeys } from '../../src/modules/sftp/host-keys.js';
import { RangeReader } from '../../src/modules/sftp/sftp.session.js';
import { MAX_HELD_BYTES, SftpUpload, UPLOAD_BUFFER, type HeldBudget } from '../../src/modules/sftp/sftp.upload.js';
import { longName, realUserPath, Status, statusOf } from '../../src/modules/sftp/sftp.util.js';
import type { Located } from '../../src/modules/fs/fs.service.js';
import { DriverError } from '../../src/modules/storages/drivers/index.js';
import { requireCommand, run } from '../support/commands.js';
import { scratchDir } from './support.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('SFTP host keys', () => {
  test('made once (ed25519 + rsa), mode 0600, readable by ssh-keygen and ssh2, reused', async () => {
    requireCommand('ssh-keygen', 'openssh-client');
    const dir = scratchDir();
    dirs.push(dir);
    const first = await loadHostKeys(dir);
    assert.deepEqual(first.map((k) => k.publicKey.split(' ')[0]), ['ssh-ed25519', 'ssh-rsa']);
    for (const k of first) {
      assert.equal(statSync(k.file).mode & 0o777, 0o600);
      // ssh-keygen derives the public key from the private file: same key as ours.
      assert.equal(run('ssh-keygen', ['-y', '-f', k.file]).trim().split(' ').slice(0, 2).join(' '), k.publicKey);
      assert.equal(readFileSync(`${k.file}.pub`, 'utf8').split(' ').slice(0, 2).join(' '), k.publicKey);
      const parsed = ssh2.utils.parseKey(k.privateKey);
      assert.ok(!(parsed instanceof Error), `ssh2 parses ${k.file}`);
    }
    assert.match(run('ssh-keygen', ['-lf', `${first[1]!.file}.pub`]), /^3072 SHA256:/);
    const second = await loadHostKeys(dir);
    assert.deepEqual(second, first);
  });

  test('a damaged key file stops start-up instead of being replaced', async () => {
    const dir = scratchDir();
    dirs.push(dir);
    await loadHostKeys(dir);
    writeFileSync(join(dir, 'ssh_host_ed25519_key'), 'garbage\n');
    await assert.rejects(loadHostKeys(dir), /ssh_host_ed25519_key cannot be read/);
    assert.equal(readFileSync(join(dir, 'ssh_host_ed25519_key'), 'utf8'), 'garbage\n');
  });

  test('the OpenSSH encoding of an Ed25519 key signs what the public key verifies', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const enc = ed25519ToOpenSsh(privateKey, 'c');
    const priv = ssh2.utils.parseKey(enc.privateKey);
    const pub = ssh2.utils.parseKey(enc.publicKey);
    assert.ok(!(priv instanceof Error) && !Array.isArray(priv));
    assert.ok(!(pub instanceof Error) && !Array.isArray(pub));
    const sig = priv.sign(Buffer.from('hello'));
    assert.equal(pub.verify(Buffer.from('hello'), sig), true);
    assert.equal(pub.verify(Buffer.from('hellO'), sig), false);
  });
});

describe('REALPATH', () => {
  test('`..` never climbs above the base path; results are in the user\'s view', () => {
    assert.equal(realUserPath('/home/u', '.'), '/');
    assert.equal(realUserPath('/home/u', '..'), '/');
    assert.equal(realUserPath('/home/u', '/../../etc'), '/etc');
    assert.equal(realUserPath('/home/u', 'a/b/../c'), '/a/c');
    assert.equal(realUserPath('/', 'a\\b'), '/a/b');
    assert.throws(() => realUserPath('/home/u', '/%2e%2e/x'), UnsafePathError);
    assert.throws(() => realUserPath('/home/u', '/a\0'), UnsafePathError);
  });
});

describe('ls -l long names', () => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);
  test('recent files show the time, old ones the year; read-only users see no w bits', () => {
    const recent = { isDir: false, size: 1234, modified: new Date(Date.UTC(2026, 10, 1, 9, 5)) };
    assert.equal(longName('a.txt', recent, 'alice', true, now), '-rw-r--r--   1 alice    alice        1234 Nov  1 09:05 a.txt');
    const old = { isDir: true, size: 0, modified: new Date(Date.UTC(2020, 0, 15)) };
    assert.equal(longName('dir', old, 'bob', false, now), 'dr-xr-xr-x   2 bob      bob             0 Jan 15  2020 dir');
  });
});

describe('errors → SFTP status', () => {
  test('not found, permission, others; hidden paths are replaced by the user\'s view', () => {
    assert.equal(statusOf(new AppError(404, 'object not found')).code, Status.NO_SUCH_FILE);
    assert.equal(statusOf(new DriverError('not_found', 'nope')).code, Status.NO_SUCH_FILE);
    assert.equal(statusOf(new AppError(403, 'permission denied')).code, Status.PERMISSION_DENIED);
    assert.equal(statusOf(new UnsafePathError()).code, Status.PERMISSION_DENIED);
    assert.equal(statusOf(new DriverError('permission', 'EACCES')).code, Status.PERMISSION_DENIED);
    const io = statusOf(new DriverError('io', 'disk full at /home/u/x.bin'), [['/home/u/x.bin', '/x.bin'], ['/home/u', '/']]);
    assert.deepEqual(io, { code: Status.FAILURE, message: 'disk full at /x.bin' });
    assert.deepEqual(statusOf(new Error('boom')), { code: Status.FAILURE, message: 'boom' });
  });
});

describe('RangeReader', () => {
  const content = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  function fakeLocated(calls: Array<{ start: number }>): Located {
    const driver = {
      async read(_p: string, range?: { start: number; end?: number }) {
        const start = range?.start ?? 0;
        calls.push({ start });
        if (start >= content.length) throw new DriverError('invalid_range', 'out of range');
        // 64-byte chunks, so reads cross chunk boundaries
        const chunks: Buffer[] = [];
        for (let o = start; o < content.length; o += 64) chunks.push(content.subarray(o, Math.min(o + 64, content.length)));
        return Readable.from(chunks);
      },
    };
    return { driver, inner: '/f', storage: {} } as unknown as Located;
  }

  test('sequential reads share one stream; a jump reopens at the new offset', async () => {
    const calls: Array<{ start: number }> = [];
    const r = new RangeReader(fakeLocated(calls), content.length);
    for (let off = 0; off < 500; off += 100) assert.deepEqual(await r.read(off, 100), content.subarray(off, off + 100));
    assert.equal(calls.length, 1);
    assert.deepEqual(await r.read(900, 200), content.subarray(900));
    assert.deepEqual(calls.map((c) => c.start), [0, 900]);
    assert.equal(await r.read(1000, 10), null);
    assert.deepEqual(await r.read(10, 5), content.subarray(10, 15));
    assert.deepEqual(await r.read(15, 5), content.subarray(15, 20));
    assert.deepEqual(calls.map((c) => c.start), [0, 900, 10]);
    assert.equal(await r.read(5000, 10), null);
    r.close();
  });
});

describe('SftpUpload', () => {
  /** A store that reads the stream slowly (or not at all until `go`) and records what it got. */
  function fakeStore(opts: { failAfter?: number } = {}) {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const got: Buffer[] = [];
    let committed = false;
    let aborted: unknown = null;
    const store = async (body: Readable) => {
      await gate;
      let n = 0;
      try {
        for await (const c of body) {
          got.push(c as Buffer);
          n += (c as Buffer).length;
          if (opts.failAfter !== undefined && n > opts.failAfter) throw new Error('disk full');
        }
      } catch (e) {
        aborted = e;
        throw e;
      }
      committed = true;
    };
    return { store, go: () => release(), bytes: () => Buffer.concat(got), committed: () => committed, aborted: () => aborted };
  }
  /** WRITE replies as they come: index → null (accepted) or the message. */
  function replies() {
    const log: Array<[number, string | null]> = [];
    return { log, reply: (i: number) => (e: Error | null) => log.push([i, e ? e.message : null]) };
  }
  const data = Buffer.from(Array.from({ length: 2 * UPLOAD_BUFFER }, (_, i) => (i * 7) % 253));
  const chunks = (size: number) => Array.from({ length: data.length / size }, (_, i) => ({ off: i * size, buf: data.subarray(i * size, (i + 1) * size) }));

  test('out-of-order pipelined writes land in order; held ones are answered at once and counted in the budget', async () => {
    const f = fakeStore();
    const budget: HeldBudget = { bytes: 0 };
    const u = new SftpUpload(f.store, budget);
    const parts = chunks(32 * 1024);
    const order = [3, 1, 0, 2, 7, 5, 6, 4];
    const r = replies();
    u.write(parts[3]!.off, parts[3]!.buf, r.reply(3));
    u.write(parts[1]!.off, parts[1]!.buf, r.reply(1));
    assert.equal(budget.bytes, 2 * 32 * 1024, 'two writes wait for the bytes before them');
    assert.equal(u.size, 4 * 32 * 1024, 'FSTAT reports the furthest byte written');
    for (const i of order.slice(2)) u.write(parts[i]!.off, parts[i]!.buf, r.reply(i));
    assert.equal(budget.bytes, 0);
    assert.deepEqual(r.log.map(([i]) => i), order);
    assert.ok(r.log.every(([, e]) => e === null));
    f.go();
    await u.close();
    assert.ok(f.committed());
    assert.deepEqual(f.bytes(), data.subarray(0, 8 * 32 * 1024));
  });

  test('replies wait while the buffer is full and are sent as the store drains it; close waits for every byte', async () => {
    const f = fakeStore();
    const u = new SftpUpload(f.store, { bytes: 0 });
    const r = replies();
    const parts = chunks(64 * 1024);
    for (const [i, p] of parts.entries()) u.write(p.off, p.buf, r.reply(i));
    // The store has not read yet: UPLOAD_BUFFER bytes are accepted, the rest wait.
    const answered = r.log.length;
    assert.ok(answered >= UPLOAD_BUFFER / (64 * 1024) - 1 && answered < parts.length, `answered ${answered} of ${parts.length}`);
    const closing = u.close();
    f.go();
    await closing;
    assert.equal(r.log.length, parts.length, 'every WRITE got its reply before CLOSE finished');
    assert.ok(r.log.every(([, e]) => e === null));
    assert.deepEqual(f.bytes(), data);
  });

  test('a gap at CLOSE, an overlapping write, or too much held data cancels the upload clearly', async () => {
    // gap
    const g = fakeStore();
    g.go();
    const budget: HeldBudget = { bytes: 0 };
    const gap = new SftpUpload(g.store, budget);
    const r = replies();
    gap.write(0, data.subarray(0, 1000), r.reply(0));
    gap.write(5000, data.subarray(5000, 6000), r.reply(1));
    assert.deepEqual(r.log, [[0, null], [1, null]]);
    await assert.rejects(gap.close(), /upload failed: the upload has a gap: bytes 1000 to 4999 were never written/);
    assert.ok(!g.committed() && g.aborted());
    assert.equal(budget.bytes, 0, 'held bytes are returned to the budget');

    // overlap: this write and every later one fail; nothing is committed
    const o = fakeStore();
    o.go();
    const over = new SftpUpload(o.store, budget);
    const r2 = replies();
    over.write(0, data.subarray(0, 1000), r2.reply(0));
    over.write(500, data.subarray(500, 1500), r2.reply(1));
    over.write(1000, data.subarray(1000, 2000), r2.reply(2));
    assert.equal(r2.log[0]![1], null);
    assert.match(r2.log[1]![1]!, /overlapping write at offset 500: .*cannot be rewritten; the upload was cancelled/);
    assert.match(r2.log[2]![1]!, /^upload failed: overlapping write at offset 500/);
    await assert.rejects(over.close(), /overlapping write/);
    assert.ok(!o.committed());

    // held bytes beyond the session's budget
    const b = fakeStore();
    b.go();
    const big = new SftpUpload(b.store, budget);
    const r3 = replies();
    const piece = Buffer.alloc(1 << 20);
    for (let i = 1; i <= MAX_HELD_BYTES / piece.length + 1; i++) big.write(i * piece.length, piece, r3.reply(i));
    const last = r3.log[r3.log.length - 1]!;
    assert.match(last[1]!, /out-of-order write at offset \d+ \(expected 0\): more than 16 MiB would wait for earlier bytes/);
    assert.equal(r3.log.filter(([, e]) => e === null).length, MAX_HELD_BYTES / piece.length);
    assert.equal(budget.bytes, 0);
    await assert.rejects(big.close(), /out-of-order write/);
    assert.ok(!b.committed());
  });

  test('a storage failure mid-pipeline fails the waiting and later writes and CLOSE; abort cancels an open upload', async () => {
    const f = fakeStore({ failAfter: 100 * 1024 });
    const u = new SftpUpload(f.store, { bytes: 0 });
    const r = replies();
    const parts = chunks(32 * 1024);
    for (const [i, p] of parts.entries()) u.write(p.off, p.buf, r.reply(i));
    f.go();
    await assert.rejects(u.close(), /upload failed: disk full/);
    assert.equal(r.log.length, parts.length, 'every WRITE was answered');
    assert.ok(r.log.some(([, e]) => e !== null && /upload failed: disk full/.test(e)));
    const r2 = replies();
    u.write(data.length, Buffer.alloc(10), r2.reply(0));
    assert.match(r2.log[0]![1]!, /upload failed: disk full/);
    assert.ok(!f.committed());

    const a = fakeStore();
    a.go();
    const cut = new SftpUpload(a.store, { bytes: 0 });
    cut.write(0, data.subarray(0, 1000), () => undefined);
    await cut.abort(new Error('session ended'));
    assert.ok(!a.committed() && a.aborted());
    await assert.rejects(cut.close(), /upload failed: session ended/);
  });
});
