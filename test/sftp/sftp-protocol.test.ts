/**
 * SFTP requests one by one (ssh2's SFTP client), for what the OpenSSH client does not
 * let a test control: offsets of reads and writes, sessions that end mid-upload, status
 * codes, REALPATH, READDIR batches, cross-storage renames, and closing the server under
 * open sessions. Both databases.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client, SFTPWrapper } from 'ssh2';
import { forEachDialect, type Harness } from '../support/harness.js';
import { call, keygen, scratchDir, SFTP_READ, SFTP_WRITE, ssh2Connect, ssh2Sftp, waitFor } from './support.js';

const T = { timeout: 120_000 };
const STATUS = { EOF: 1, NO_SUCH_FILE: 2, PERMISSION_DENIED: 3, FAILURE: 4 };
const FLAGS = { READ: 0x01, WRITE: 0x02, APPEND: 0x04, CREAT: 0x08, TRUNC: 0x10, EXCL: 0x20 };

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** No temp files of unfinished writes anywhere below `dir`. */
function leftovers(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.ferry-tmp')) out.push(join(d, e.name));
      if (e.isDirectory()) walk(join(d, e.name));
    }
  };
  walk(dir);
  return out;
}

forEachDialect('sftp protocol (ssh2 client)', (h: () => Harness) => {
  const files = () => join(h().dataDir, 'files');
  const port = () => h().sftp!.address.port;
  const key = () => keygen('proto-ed25519', 'ed25519');
  let client: Client;
  let sftp: SFTPWrapper;
  let token: string;
  const data = randomBytes(1024 * 1024 + 123);

  const open = (p: string, flags: number) => call<Buffer>((cb) => sftp.open(p, flags, cb));
  const close = (handle: Buffer) => call<void>((cb) => sftp.close(handle, cb));
  const write = (handle: Buffer, buf: Buffer, pos: number) => call<void>((cb) => sftp.write(handle, buf, 0, buf.length, pos, cb));
  async function read(handle: Buffer, pos: number, len: number): Promise<Buffer> {
    const buf = Buffer.alloc(len);
    const r = await call<number>((cb) => sftp.read(handle, buf, 0, len, pos, cb));
    assert.equal(r.err, null, r.err?.message);
    return buf.subarray(0, r.value);
  }

  before(async () => {
    await h().createUser('proto', 'proto-password-1', { permission: SFTP_READ | SFTP_WRITE, base_path: '/' });
    token = await h().login('proto', 'proto-password-1');
    const r = await h().post('/api/me/sshkey/add', { title: 'k', key: key().pub }, { token });
    assert.equal(r.status, 200, r.body.message);
    writeFileSync(join(files(), 'data.bin'), data);
    ({ client, sftp } = await ssh2Sftp(port(), { username: 'proto', privateKey: readFileSync(key().file) }));
  });
  after(() => client?.end());

  test('REALPATH: `.`, `..` and `x/../..` stay at /; other paths are cleaned', T, async () => {
    for (const [p, want] of [
      ['.', '/'],
      ['..', '/'],
      ['/..', '/'],
      ['/a/../..', '/'],
      ['../../../etc', '/etc'],
      ['x/./y/../z', '/x/z'],
      ['//x///y/', '/x/y'],
    ]) {
      const r = await call<string>((cb) => sftp.realpath(p!, cb));
      assert.equal(r.err, null, `${p}: ${r.err?.message}`);
      assert.equal(r.value, want, p);
    }
    const nul = await call<string>((cb) => sftp.realpath('/a\0b', cb));
    assert.equal(nul.err?.code, STATUS.PERMISSION_DENIED);
  });

  test('status codes: missing → NO_SUCH_FILE, `..` → PERMISSION_DENIED, a file as a folder → FAILURE', T, async () => {
    assert.equal((await call((cb) => sftp.stat('/nothing', cb))).err?.code, STATUS.NO_SUCH_FILE);
    assert.equal((await call((cb) => sftp.lstat('/nothing', cb))).err?.code, STATUS.NO_SUCH_FILE);
    assert.equal((await open('/nothing', FLAGS.READ)).err?.code, STATUS.NO_SUCH_FILE);
    const dotdot = await call((cb) => sftp.stat('/../etc/passwd', cb));
    assert.equal(dotdot.err?.code, STATUS.PERMISSION_DENIED);
    assert.match(dotdot.err!.message, /relative path is not allowed/);
    const od = await call((cb) => sftp.opendir('/data.bin', cb));
    assert.equal(od.err?.code, STATUS.FAILURE);
    const st = await call<{ size: number; mode: number; mtime: number }>((cb) => sftp.stat('/data.bin', cb));
    assert.equal(st.err, null);
    assert.equal(st.value!.size, data.length);
    assert.equal(st.value!.mode & 0o170000, 0o100000);
    const dir = await call<{ mode: number }>((cb) => sftp.stat('/', cb));
    assert.equal(dir.value!.mode & 0o170000, 0o040000);
    assert.equal((await call((cb) => sftp.readlink('/data.bin', cb))).err?.code, 8);
  });

  test('reads at any offset return the right bytes (sequential, backwards, past the end)', T, async () => {
    const o = await open('/data.bin', FLAGS.READ);
    assert.equal(o.err, null, o.err?.message);
    const hd = o.value!;
    const fst = await call<{ size: number }>((cb) => sftp.fstat(hd, cb));
    assert.equal(fst.value!.size, data.length);
    for (const [pos, len] of [
      [0, 32768],
      [32768, 32768],
      [700_000, 30_000],
      [5, 10],
      [data.length - 100, 32768],
      [65536, 1000],
      [data.length, 100],
      [data.length + 5000, 100],
    ] as const) {
      const got = await read(hd, pos, len);
      assert.deepEqual(got, data.subarray(pos, Math.min(pos + len, data.length)), `read ${len} at ${pos}`);
    }
    // The whole file through ssh2's parallel reader.
    const local = join(scratchDir(), 'back.bin');
    dirs.push(join(local, '..'));
    const fg = await call<void>((cb) => sftp.fastGet('/data.bin', local, cb));
    assert.equal(fg.err, null, fg.err?.message);
    assert.deepEqual(readFileSync(local), data);
    assert.equal((await close(hd)).err, null);
  });

  test('an upload replaces the file only at CLOSE; until then the old content is served', T, async () => {
    writeFileSync(join(files(), 'swap.txt'), 'old content\n');
    const o = await open('/swap.txt', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC);
    assert.equal(o.err, null, o.err?.message);
    const part = randomBytes(200_000);
    assert.equal((await write(o.value!, part.subarray(0, 100_000), 0)).err, null);
    assert.equal((await write(o.value!, part.subarray(100_000), 100_000)).err, null);
    assert.equal(readFileSync(join(files(), 'swap.txt'), 'utf8'), 'old content\n');
    const fst = await call<{ size: number }>((cb) => sftp.fstat(o.value!, cb));
    assert.equal(fst.value!.size, 200_000);
    assert.equal((await call((cb) => sftp.fsetstat(o.value!, { mtime: 1_700_000_000, atime: 1_700_000_000 }, cb))).err, null);
    assert.equal((await close(o.value!)).err, null);
    assert.deepEqual(readFileSync(join(files(), 'swap.txt')), part);
    assert.deepEqual(leftovers(files()), []);
    // An empty upload makes an empty file.
    const e = await open('/empty.txt', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC);
    assert.equal((await close(e.value!)).err, null);
    assert.equal(readFileSync(join(files(), 'empty.txt')).length, 0);
  });

  test('pipelined writes in any order land correctly; CLOSE answers after every WRITE, with the whole file there', T, async () => {
    const big = randomBytes(3 * 1024 * 1024 + 777); // more than the upload buffer: some replies wait
    const o = await open('/pipelined.bin', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC);
    assert.equal(o.err, null, o.err?.message);
    const size = 16 * 1024; // one WRITE each (ssh2's client splits larger ones, sending the rest after the reply)
    const offsets = Array.from({ length: Math.ceil(big.length / size) }, (_, i) => i * size);
    // Swap neighbours in each group of four: the server sees writes ahead of the expected offset.
    const order = offsets.map((_, i) => offsets[i - (i % 4) + [1, 0, 3, 2][i % 4]!] ?? offsets[i]!);
    assert.deepEqual([...order].sort((x, y) => x - y), offsets);
    const answered: string[] = [];
    // Nothing awaited: every request is in flight at once, as OpenSSH's client keeps them.
    const writes = order.map((off) =>
      write(o.value!, big.subarray(off, off + size), off).then((r) => {
        answered.push('write');
        return r;
      }),
    );
    const closed = close(o.value!).then((r) => {
      answered.push('close');
      return r;
    });
    for (const w of await Promise.all(writes)) assert.equal(w.err, null, w.err?.message);
    assert.equal((await closed).err, null);
    assert.equal(answered.indexOf('close'), writes.length, 'CLOSE was answered last');
    assert.deepEqual(readFileSync(join(files(), 'pipelined.bin')), big);
    assert.deepEqual(leftovers(files()), []);
  });

  test('a gap at CLOSE or an overlapping write mid-pipeline fails clearly, cancels the upload and leaves nothing', T, async () => {
    writeFileSync(join(files(), 'keep.txt'), 'keep me\n');
    for (const target of ['/gap.bin', '/keep.txt']) {
      // A write ahead of the expected offset waits for the bytes before it; they never come.
      const o = await open(target, FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC);
      assert.equal(o.err, null);
      assert.equal((await write(o.value!, Buffer.alloc(1000, 1), 0)).err, null);
      assert.equal((await write(o.value!, Buffer.alloc(1000, 2), 5000)).err, null);
      const c = await close(o.value!);
      assert.equal(c.err?.code, STATUS.FAILURE);
      assert.match(c.err!.message, /the upload has a gap: bytes 1000 to 4999 were never written/);
    }
    // Pipelined writes with one rewriting bytes already sent: it and every later write fail.
    const o = await open('/keep.txt', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC);
    const sent = [0, 1000, 2000, 1500, 3000, 4000].map((off) => write(o.value!, Buffer.alloc(1000, 3), off));
    const rs = await Promise.all(sent);
    assert.deepEqual(rs.map((r) => r.err?.code ?? 0), [0, 0, 0, STATUS.FAILURE, STATUS.FAILURE, STATUS.FAILURE]);
    assert.match(rs[3]!.err!.message, /overlapping write at offset 1500: .*the upload was cancelled/);
    assert.equal((await close(o.value!)).err?.code, STATUS.FAILURE);
    assert.ok(!existsSync(join(files(), 'gap.bin')));
    assert.equal(readFileSync(join(files(), 'keep.txt'), 'utf8'), 'keep me\n');
    assert.deepEqual(leftovers(files()), []);
  });

  test('changing a file in place (no TRUNC), EXCL on an existing file, and writing a folder are refused', T, async () => {
    const inPlace = await open('/keep.txt', FLAGS.WRITE);
    assert.equal(inPlace.err?.code, STATUS.FAILURE);
    assert.match(inPlace.err!.message, /in place is not supported/);
    const append = await open('/keep.txt', FLAGS.WRITE | FLAGS.APPEND | FLAGS.CREAT);
    assert.equal(append.err?.code, STATUS.FAILURE);
    const excl = await open('/keep.txt', FLAGS.WRITE | FLAGS.CREAT | FLAGS.EXCL);
    assert.equal(excl.err?.code, STATUS.FAILURE);
    assert.match(excl.err!.message, /exists/);
    const noCreate = await open('/not-there.txt', FLAGS.WRITE | FLAGS.TRUNC);
    assert.equal(noCreate.err?.code, STATUS.NO_SUCH_FILE);
    const noParent = await open('/no/such/dir/x.txt', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC);
    assert.equal(noParent.err?.code, STATUS.NO_SUCH_FILE);
    mkdirSync(join(files(), 'adir'), { recursive: true });
    const dir = await open('/adir', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC);
    assert.equal(dir.err?.code, STATUS.FAILURE);
    assert.equal(readFileSync(join(files(), 'keep.txt'), 'utf8'), 'keep me\n');
    assert.ok(!existsSync(join(files(), 'no')));
  });

  test('a session that ends before CLOSE leaves no file and no temporary file', T, async () => {
    const other = await ssh2Sftp(port(), { username: 'proto', privateKey: readFileSync(key().file) });
    const o = await call<Buffer>((cb) => other.sftp.open('/cut.bin', 'w', cb));
    assert.equal(o.err, null);
    for (let i = 0; i < 8; i++) {
      const w = await call<void>((cb) => other.sftp.write(o.value!, Buffer.alloc(65536, i), 0, 65536, i * 65536, cb));
      assert.equal(w.err, null);
    }
    // The bytes are on their way into the storage's temporary file.
    await waitFor(() => leftovers(files()).length === 1, 10_000, 'the upload to reach the storage');
    other.client.end();
    await waitFor(() => leftovers(files()).length === 0, 10_000, 'the unfinished upload to be cleaned up');
    assert.ok(!existsSync(join(files(), 'cut.bin')));
  });

  test('READDIR returns every entry once, in batches, with ls -l long names', T, async () => {
    mkdirSync(join(files(), 'many'), { recursive: true });
    const names = Array.from({ length: 300 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`);
    for (const n of names) writeFileSync(join(files(), 'many', n), n);
    const r = await call<Array<{ filename: string; longname: string; attrs: { size: number } }>>((cb) => sftp.readdir('/many', cb));
    assert.equal(r.err, null, r.err?.message);
    assert.deepEqual(r.value!.map((e) => e.filename).sort(), names);
    for (const e of r.value!) {
      assert.equal(e.attrs.size, 8);
      assert.match(e.longname, new RegExp(`^-rw-r--r-- +1 proto +proto +8 \\w{3} [ \\d]\\d \\d\\d:\\d\\d ${e.filename.replace('.', '\\.')}$`));
    }
  });

  test('mkdir, rmdir, remove and rename follow SFTP v3 rules', T, async () => {
    assert.equal((await call((cb) => sftp.mkdir('/m', cb))).err, null);
    assert.equal((await call((cb) => sftp.mkdir('/m', cb))).err?.code, STATUS.FAILURE);
    assert.equal((await call((cb) => sftp.mkdir('/nope/m', cb))).err?.code, STATUS.NO_SUCH_FILE);
    writeFileSync(join(files(), 'm', 'in.txt'), 'x');
    assert.equal((await call((cb) => sftp.rmdir('/m', cb))).err?.code, STATUS.FAILURE);
    assert.equal((await call((cb) => sftp.unlink('/m', cb))).err?.code, STATUS.FAILURE);
    assert.equal((await call((cb) => sftp.rmdir('/m/in.txt', cb))).err?.code, STATUS.FAILURE);
    assert.equal((await call((cb) => sftp.rmdir('/', cb))).err?.code, STATUS.PERMISSION_DENIED);
    assert.equal((await call((cb) => sftp.unlink('/nothing', cb))).err?.code, STATUS.NO_SUCH_FILE);
    // rename does not replace an existing target
    writeFileSync(join(files(), 'm', 'other.txt'), 'y');
    assert.equal((await call((cb) => sftp.rename('/m/in.txt', '/m/other.txt', cb))).err?.code, STATUS.FAILURE);
    assert.equal(readFileSync(join(files(), 'm', 'other.txt'), 'utf8'), 'y');
    // into another folder, then a folder into itself
    assert.equal((await call((cb) => sftp.rename('/m/in.txt', '/adir/in.txt', cb))).err, null);
    assert.equal(readFileSync(join(files(), 'adir', 'in.txt'), 'utf8'), 'x');
    assert.equal((await call((cb) => sftp.rename('/m', '/m/inner', cb))).err?.code, STATUS.FAILURE);
    assert.equal((await call((cb) => sftp.unlink('/m/other.txt', cb))).err, null);
    assert.equal((await call((cb) => sftp.rmdir('/m', cb))).err, null);
    assert.ok(!existsSync(join(files(), 'm')));
    // SETSTAT is accepted (and ignored) on existing paths only
    assert.equal((await call((cb) => sftp.setstat('/adir/in.txt', { mode: 0o600 }, cb))).err, null);
    assert.equal((await call((cb) => sftp.setstat('/nothing', { mode: 0o600 }, cb))).err?.code, STATUS.NO_SUCH_FILE);
  });

  test('a rename across storages moves the bytes; uploads into a mounted storage work', T, async () => {
    const root = scratchDir('ferry-sftp-mount-');
    dirs.push(root);
    const admin = await h().adminToken();
    const c = await h().post('/api/admin/storage/create', { mount_path: '/mnt2', driver: 'local', addition: { root_folder_path: root } }, { token: admin });
    assert.equal(c.status, 200, c.body.message);
    const list = await call<Array<{ filename: string }>>((cb) => sftp.readdir('/', cb));
    assert.ok(list.value!.some((e) => e.filename === 'mnt2'), 'the mount point is listed');
    writeFileSync(join(files(), 'travel.txt'), 'across storages\n');
    assert.equal((await call((cb) => sftp.rename('/travel.txt', '/mnt2/travel.txt', cb))).err, null);
    assert.ok(!existsSync(join(files(), 'travel.txt')));
    assert.equal(readFileSync(join(root, 'travel.txt'), 'utf8'), 'across storages\n');
    const o = await open('/mnt2/up.bin', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC);
    assert.equal(o.err, null, o.err?.message);
    assert.equal((await write(o.value!, data.subarray(0, 300_000), 0)).err, null);
    assert.equal((await close(o.value!)).err, null);
    assert.deepEqual(readFileSync(join(root, 'up.bin')), data.subarray(0, 300_000));
    // the mount point itself cannot be removed or renamed over SFTP
    for (const n of ['travel.txt', 'up.bin']) assert.equal((await call((cb) => sftp.unlink(`/mnt2/${n}`, cb))).err, null);
    assert.deepEqual(readdirSync(root), []);
    assert.equal((await call((cb) => sftp.rmdir('/mnt2', cb))).err?.code, STATUS.PERMISSION_DENIED);
    assert.equal((await call((cb) => sftp.rename('/mnt2', '/mnt3', cb))).err?.code, STATUS.PERMISSION_DENIED);
    assert.ok(existsSync(root));
  });

  test('closing the server ends every session and aborts unfinished uploads', T, async () => {
    const s2 = await ssh2Sftp(port(), { username: 'proto', privateKey: readFileSync(key().file) });
    let closed = false;
    s2.client.on('close', () => (closed = true));
    const o = await call<Buffer>((cb) => s2.sftp.open('/late.bin', 'w', cb));
    assert.equal(o.err, null);
    assert.equal((await call<void>((cb) => s2.sftp.write(o.value!, Buffer.alloc(4096, 7), 0, 4096, 0, cb))).err, null);
    await h().sftp!.close(); // does not wait for the client (a hang fails the test by its timeout)
    await waitFor(() => closed, 5000, 'the client connection to close');
    assert.ok(!existsSync(join(files(), 'late.bin')));
    assert.deepEqual(leftovers(files()), []);
    const refused = await ssh2Connect(port(), { username: 'proto', privateKey: readFileSync(key().file) }, 5000);
    assert.equal(refused.ok, false, 'nothing listens any more');
    // Restart for the harness's own shutdown.
    await h().close();
    await h().open();
    const again = await ssh2Connect(h().sftp!.address.port, { username: 'proto', privateKey: readFileSync(key().file) });
    assert.equal(again.ok, true, again.error?.message);
    again.client.end();
  });
}, { FERRY_SFTP_LISTEN: '127.0.0.1:0' });
