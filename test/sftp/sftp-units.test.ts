/**
 * The SFTP server's small parts, without a network: host-key files (read back by
 * ssh-keygen and ssh2), REALPATH resolution, `ls -l` long names, error → status mapping,
 * and the per-handle range reader (one stream for sequential reads, reopened on a jump).
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
