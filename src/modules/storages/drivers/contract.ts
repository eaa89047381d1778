/**
 * The shared driver contract suite (contract §7: every driver passes it). A driver test file calls
 * `driverContract(name, setup)`; `setup` gives a fresh, empty storage per test plus raw views of
 * the backing store so "nothing left behind" can be checked below the driver's own filters.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { DriverError, type ByteRange, type DriverErrorKind, type Entry, type StorageDriver, type WriteOptions } from './types.js';

export interface ContractFixture {
  driver: StorageDriver;
  /** Every raw object/file name under the storage root, temp files included (relative paths). */
  raw(): Promise<string[]>;
  /** Incomplete uploads the backend still holds (S3 multipart uploads); 0 when not applicable. */
  pendingUploads(): Promise<number>;
  cleanup(): Promise<void>;
}

export interface ContractOptions {
  /** Size of the "multi-part-sized" file. */
  bigSize?: number;
}

// ------------------------------------------------------------------------------------ helpers

export async function writeFile(d: StorageDriver, path: string, data: Buffer | string, opts: WriteOptions = {}): Promise<Entry> {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  const w = await d.beginWrite(path, { size: buf.length, ...opts });
  await w.pipeFrom(chunked(buf, 64 * 1024));
  return w.commit();
}

export function chunked(buf: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) chunks.push(buf.subarray(i, i + size));
  return Readable.from(chunks);
}

export async function readAll(d: StorageDriver, path: string, range?: ByteRange): Promise<Buffer> {
  const r = await d.read(path, range);
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
}

export async function rejectsKind(p: Promise<unknown>, kind: DriverErrorKind, what = ''): Promise<DriverError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof DriverError, `${what}: expected DriverError(${kind}), got ${String(e)}`);
    assert.equal(e.kind, kind, `${what}: ${e.message}`);
    return e;
  }
  assert.fail(`${what}: expected DriverError(${kind}), but it resolved`);
}

const hex = (algo: string, b: Buffer | string) => createHash(algo).update(b).digest('hex');
const names = (es: Entry[]) => es.map((e) => e.name).sort();

// ------------------------------------------------------------------------------------ suite

export function driverContract(label: string, setup: () => Promise<ContractFixture>, copts: ContractOptions = {}): void {
  const BIG = copts.bigSize ?? 12 * 1024 * 1024;

  describe(`driver contract: ${label}`, () => {
    let fx: ContractFixture;
    let d: StorageDriver;
    const fresh = async () => {
      if (fx) await fx.cleanup();
      fx = await setup();
      d = fx.driver;
    };
    const nothingLeft = async (what: string) => {
      const raw = await fx.raw();
      assert.deepEqual(
        raw.filter((r) => r.split('/').some((s) => s.startsWith('.ferry-tmp-'))),
        [],
        `${what}: temp items left: ${raw.join(', ')}`,
      );
      assert.equal(await fx.pendingUploads(), 0, `${what}: incomplete uploads left`);
    };
    before(fresh);
    after(async () => fx?.cleanup());

    it('starts empty; the root is a directory', async () => {
      await fresh();
      assert.deepEqual(await d.list('/'), []);
      const root = await d.stat('/');
      assert.equal(root.isDir, true);
      assert.equal(root.path, '/');
    });

    it('mkdir creates folders (and parents), is idempotent, refuses over a file', async () => {
      await fresh();
      const e = await d.mkdir('/a');
      assert.equal(e.isDir, true);
      assert.equal(e.name, 'a');
      await d.mkdir('/a');
      await d.mkdir('/x/y/z');
      assert.deepEqual(names(await d.list('/')), ['a', 'x']);
      assert.deepEqual(names(await d.list('/x/y')), ['z']);
      assert.deepEqual(await d.list('/a'), []);
      assert.equal((await d.stat('/x/y/z')).isDir, true);
      await writeFile(d, '/a/f', 'f');
      await rejectsKind(d.mkdir('/a/f'), 'exists', 'mkdir over file');
      await rejectsKind(d.mkdir('/a/f/g'), 'not_a_directory', 'mkdir under file');
    });

    it('write + commit, stat, list, read whole', async () => {
      await fresh();
      await d.mkdir('/docs');
      const e = await writeFile(d, '/docs/hello.txt', 'hello world');
      assert.equal(e.size, 11);
      assert.equal(e.path, '/docs/hello.txt');
      assert.equal(e.isDir, false);
      const st = await d.stat('/docs/hello.txt');
      assert.equal(st.size, 11);
      assert.equal(st.name, 'hello.txt');
      assert.ok(st.modified instanceof Date && !Number.isNaN(st.modified.getTime()));
      const ls = await d.list('/docs');
      assert.deepEqual(ls.map((x) => [x.name, x.size, x.isDir, x.path]), [['hello.txt', 11, false, '/docs/hello.txt']]);
      assert.equal((await readAll(d, '/docs/hello.txt')).toString(), 'hello world');
    });

    it('writes create missing parent folders', async () => {
      await fresh();
      await writeFile(d, '/p/q/r.txt', 'r');
      assert.equal((await d.stat('/p/q')).isDir, true);
      assert.deepEqual(names(await d.list('/p')), ['q']);
    });

    it('range reads: start only, start+end, last byte, single first byte; unsatisfiable ranges', async () => {
      await fresh();
      await writeFile(d, '/r.bin', '0123456789');
      assert.equal((await readAll(d, '/r.bin', { start: 3 })).toString(), '3456789');
      assert.equal((await readAll(d, '/r.bin', { start: 2, end: 5 })).toString(), '2345');
      assert.equal((await readAll(d, '/r.bin', { start: 9, end: 9 })).toString(), '9');
      assert.equal((await readAll(d, '/r.bin', { start: 9 })).toString(), '9');
      assert.equal((await readAll(d, '/r.bin', { start: 0, end: 0 })).toString(), '0');
      assert.equal((await readAll(d, '/r.bin', { start: 0, end: 9 })).toString(), '0123456789');
      await rejectsKind(d.read('/r.bin', { start: 10 }), 'invalid_range', 'start past end');
      await rejectsKind(d.read('/r.bin', { start: 5, end: 10 }), 'invalid_range', 'end past end');
      await rejectsKind(d.read('/r.bin', { start: 5, end: 4 }), 'invalid_range', 'end before start');
    });

    it('abort leaves nothing behind', async () => {
      await fresh();
      const w = await d.beginWrite('/gone.txt');
      w.stream.write(Buffer.alloc(1000, 1));
      await new Promise((r) => setTimeout(r, 20));
      await w.abort();
      await w.abort(); // idempotent
      await rejectsKind(d.stat('/gone.txt'), 'not_found', 'after abort');
      assert.deepEqual(await d.list('/'), []);
      await rejectsKind(w.commit(), 'aborted', 'commit after abort');
      await nothingLeft('abort');
    });

    it('a failing source (client disconnect mid-stream) aborts; nothing is left, old content intact', async () => {
      await fresh();
      await writeFile(d, '/keep.bin', 'old content');
      const big = randomBytes(6 * 1024 * 1024); // beyond one S3 part
      let sent = 0;
      const src = new Readable({
        read() {
          if (sent >= big.length) {
            this.destroy(new Error('client disconnected'));
            return;
          }
          this.push(big.subarray(sent, sent + 256 * 1024));
          sent += 256 * 1024;
        },
      });
      const w = await d.beginWrite('/keep.bin', { size: big.length + 100 });
      await assert.rejects(w.pipeFrom(src));
      await rejectsKind(w.commit(), 'aborted', 'commit after failed stream');
      assert.equal((await readAll(d, '/keep.bin')).toString(), 'old content');
      assert.deepEqual(names(await d.list('/')), ['keep.bin']);
      await nothingLeft('disconnect');
    });

    it('destroying the sink (pipeline error) aborts the write', async () => {
      await fresh();
      const w = await d.beginWrite('/x.bin');
      w.stream.on('error', () => undefined); // a pipeline would own this error
      w.stream.write(Buffer.alloc(10));
      w.stream.destroy(new Error('boom'));
      await new Promise((r) => setTimeout(r, 50));
      await rejectsKind(w.commit(), 'aborted', 'commit after destroy');
      await rejectsKind(d.stat('/x.bin'), 'not_found', 'after destroy');
      await nothingLeft('destroy');
    });

    it('overwrite=false refuses at begin and at commit', async () => {
      await fresh();
      await writeFile(d, '/f.txt', 'one');
      await rejectsKind(d.beginWrite('/f.txt', { overwrite: false }), 'exists', 'begin');
      const w = await d.beginWrite('/g.txt', { overwrite: false });
      await w.pipeFrom(Readable.from([Buffer.from('mine')]));
      await writeFile(d, '/g.txt', 'theirs'); // someone else lands first
      await rejectsKind(w.commit(), 'exists', 'commit');
      assert.equal((await readAll(d, '/g.txt')).toString(), 'theirs');
      await nothingLeft('overwrite=false');
    });

    it('overwrite keeps the old content until commit; abort keeps it for good', async () => {
      await fresh();
      await writeFile(d, '/o.txt', 'version 1');
      const w = await d.beginWrite('/o.txt');
      await w.pipeFrom(Readable.from([Buffer.from('version 2, longer')]));
      assert.equal((await readAll(d, '/o.txt')).toString(), 'version 1');
      assert.deepEqual(names(await d.list('/')), ['o.txt']);
      const e = await w.commit();
      assert.equal(e.size, 17);
      assert.equal((await readAll(d, '/o.txt')).toString(), 'version 2, longer');
      const w2 = await d.beginWrite('/o.txt');
      await w2.pipeFrom(Readable.from([Buffer.from('version 3')]));
      await w2.abort();
      assert.equal((await readAll(d, '/o.txt')).toString(), 'version 2, longer');
      await nothingLeft('overwrite');
    });

    it('declared size is enforced (short and long)', async () => {
      await fresh();
      await writeFile(d, '/s.txt', 'original');
      const w = await d.beginWrite('/s.txt', { size: 10 });
      await w.pipeFrom(Readable.from([Buffer.from('12345')]));
      await rejectsKind(w.commit(), 'size_mismatch', 'short');
      const w2 = await d.beginWrite('/s.txt', { size: 3 });
      await assert.rejects(w2.pipeFrom(Readable.from([Buffer.from('12345')])));
      assert.equal((await readAll(d, '/s.txt')).toString(), 'original');
      await nothingLeft('size');
    });

    it('rename files and folders', async () => {
      await fresh();
      await writeFile(d, '/dir/a.txt', 'A');
      await writeFile(d, '/dir/sub/b.txt', 'B');
      const e = await d.rename('/dir/a.txt', 'c.txt');
      assert.equal(e.path, '/dir/c.txt');
      assert.deepEqual(names(await d.list('/dir')), ['c.txt', 'sub']);
      await d.rename('/dir', 'renamed');
      assert.deepEqual(names(await d.list('/')), ['renamed']);
      assert.equal((await readAll(d, '/renamed/sub/b.txt')).toString(), 'B');
      await writeFile(d, '/renamed/d.txt', 'D');
      await rejectsKind(d.rename('/renamed/d.txt', 'c.txt'), 'exists', 'rename onto existing');
      await rejectsKind(d.rename('/renamed/d.txt', 'a/b'), 'invalid_name', 'slash in name');
      await rejectsKind(d.rename('/renamed/d.txt', '..'), 'invalid_name', 'dot-dot name');
      await rejectsKind(d.rename('/nope', 'x'), 'not_found', 'rename missing');
    });

    it('move files and folders (recursive); guards', async () => {
      await fresh();
      await writeFile(d, '/src/one.txt', '1');
      await writeFile(d, '/src/deep/two.txt', '22');
      await d.mkdir('/src/empty');
      await d.mkdir('/dst');
      await d.move('/src/one.txt', '/dst/one.txt');
      assert.deepEqual(names(await d.list('/dst')), ['one.txt']);
      assert.deepEqual(names(await d.list('/src')), ['deep', 'empty']);
      await d.move('/src', '/dst/moved');
      assert.deepEqual(names(await d.list('/')), ['dst']);
      assert.deepEqual(names(await d.list('/dst/moved')), ['deep', 'empty']);
      assert.equal((await readAll(d, '/dst/moved/deep/two.txt')).toString(), '22');
      await rejectsKind(d.move('/dst/moved', '/dst/moved/deep/x'), 'invalid_operation', 'into own subtree');
      await rejectsKind(d.move('/dst/one.txt', '/missing/one.txt'), 'not_found', 'missing destination folder');
      await rejectsKind(d.move('/dst/nothing', '/dst/x'), 'not_found', 'missing source');
      await writeFile(d, '/dst/other.txt', 'other');
      await rejectsKind(d.move('/dst/one.txt', '/dst/other.txt'), 'exists', 'onto existing');
      await d.move('/dst/one.txt', '/dst/other.txt', { overwrite: true });
      assert.equal((await readAll(d, '/dst/other.txt')).toString(), '1');
      await rejectsKind(d.stat('/dst/one.txt'), 'not_found', 'source gone');
    });

    it('copy files and folders (recursive, empty folders kept); source intact', async () => {
      await fresh();
      await writeFile(d, '/c/a.txt', 'aaa');
      await writeFile(d, '/c/sub/b.txt', 'bbbb');
      await d.mkdir('/c/sub/empty');
      const fe = await d.copy('/c/a.txt', '/a-copy.txt');
      assert.equal(fe.size, 3);
      assert.equal((await readAll(d, '/a-copy.txt')).toString(), 'aaa');
      const de = await d.copy('/c', '/c2');
      assert.equal(de.isDir, true);
      assert.deepEqual(names(await d.list('/c2')), ['a.txt', 'sub']);
      assert.deepEqual(names(await d.list('/c2/sub')), ['b.txt', 'empty']);
      assert.equal((await readAll(d, '/c2/sub/b.txt')).toString(), 'bbbb');
      assert.equal((await readAll(d, '/c/sub/b.txt')).toString(), 'bbbb');
      await rejectsKind(d.copy('/c', '/c2'), 'exists', 'copy dir onto existing');
      await rejectsKind(d.copy('/c/a.txt', '/a-copy.txt'), 'exists', 'copy file onto existing');
      await writeFile(d, '/c/a.txt', 'new a');
      await d.copy('/c/a.txt', '/a-copy.txt', { overwrite: true });
      assert.equal((await readAll(d, '/a-copy.txt')).toString(), 'new a');
      await rejectsKind(d.copy('/c', '/c/sub/c'), 'invalid_operation', 'into own subtree');
      await rejectsKind(d.copy('/none', '/n2'), 'not_found', 'missing source');
      await nothingLeft('copy');
    });

    it('remove files and folders recursively; the folder of a removed file stays', async () => {
      await fresh();
      await writeFile(d, '/rm/a.txt', 'a');
      await writeFile(d, '/rm/sub/b.txt', 'b');
      await writeFile(d, '/rm/sub/deeper/c.txt', 'c');
      await d.remove('/rm/a.txt');
      assert.deepEqual(names(await d.list('/rm')), ['sub']);
      await d.remove('/rm/sub/deeper/c.txt');
      assert.deepEqual(await d.list('/rm/sub/deeper'), []);
      await d.remove('/rm/sub');
      assert.deepEqual(await d.list('/rm'), []);
      await d.remove('/rm');
      assert.deepEqual(await d.list('/'), []);
      await rejectsKind(d.remove('/rm'), 'not_found', 'remove missing');
      await rejectsKind(d.remove('/'), 'invalid_operation', 'remove root');
    });

    it('unicode names and spaces', async () => {
      await fresh();
      const dir = '/dir with spaces/ünïcødé 日本語';
      const file = `${dir}/héllo wörld #1 + & ? %20 ✓.txt`;
      await writeFile(d, file, 'ünï');
      assert.deepEqual(names(await d.list('/')), ['dir with spaces']);
      assert.deepEqual(names(await d.list('/dir with spaces')), ['ünïcødé 日本語']);
      const ls = await d.list(dir);
      assert.equal(ls[0]?.name, 'héllo wörld #1 + & ? %20 ✓.txt');
      assert.equal(ls[0]?.path, file);
      assert.equal((await readAll(d, file)).toString(), 'ünï');
      await d.copy(file, `${dir}/kopie ✓.txt`);
      await d.rename(file, 'ß renamed.txt');
      assert.deepEqual(names(await d.list(dir)), ['kopie ✓.txt', 'ß renamed.txt']);
      await d.move('/dir with spaces', '/ziel ✓');
      assert.equal((await readAll(d, '/ziel ✓/ünïcødé 日本語/ß renamed.txt')).toString(), 'ünï');
    });

    it('empty file', async () => {
      await fresh();
      const e = await writeFile(d, '/empty', '');
      assert.equal(e.size, 0);
      assert.equal((await d.stat('/empty')).size, 0);
      assert.equal((await readAll(d, '/empty')).length, 0);
      assert.equal((await d.hashes('/empty')).md5, 'd41d8cd98f00b204e9800998ecf8427e');
      await rejectsKind(d.read('/empty', { start: 0 }), 'invalid_range', 'range on empty');
    });

    it(`a multi-part-sized file (${BIG} bytes): content, ranges and hashes`, async () => {
      await fresh();
      const big = randomBytes(BIG);
      const e = await writeFile(d, '/big/file.bin', big);
      assert.equal(e.size, BIG);
      assert.equal((await d.stat('/big/file.bin')).size, BIG);
      const back = await readAll(d, '/big/file.bin');
      assert.equal(back.length, BIG);
      assert.ok(back.equals(big), 'content differs');
      const mid = 5 * 1024 * 1024;
      assert.ok((await readAll(d, '/big/file.bin', { start: mid - 10, end: mid + 9 })).equals(big.subarray(mid - 10, mid + 10)));
      assert.ok((await readAll(d, '/big/file.bin', { start: BIG - 1 })).equals(big.subarray(BIG - 1)));
      const h = await d.hashes('/big/file.bin');
      assert.equal(h.md5, hex('md5', big));
      assert.equal(h.sha1, hex('sha1', big));
      assert.equal(h.sha256, hex('sha256', big));
      const c = await d.copy('/big/file.bin', '/big/copy.bin');
      assert.equal(c.size, BIG);
      assert.equal((await d.hashes('/big/copy.bin')).sha256, hex('sha256', big));
      await nothingLeft('big');
    });

    it('hashes are provided after a write (computed, or supplied at commit) and checked', async () => {
      await fresh();
      const data = Buffer.from('hash me');
      const e = await writeFile(d, '/h.txt', data);
      const want = { md5: hex('md5', data), sha1: hex('sha1', data), sha256: hex('sha256', data) };
      assert.deepEqual(e.hashes, want);
      assert.deepEqual(await d.hashes('/h.txt'), want);
      assert.deepEqual((await d.stat('/h.txt')).hashes, want);
      // caller hashes the stream itself
      const w = await d.beginWrite('/h2.txt', { computeHashes: [] });
      await w.pipeFrom(Readable.from([data]));
      await w.commit({ hashes: { sha256: want.sha256.toUpperCase(), sha1: want.sha1, md5: want.md5 } });
      assert.equal((await d.hashes('/h2.txt')).sha256, want.sha256);
      // declared hash that does not match → nothing stored
      const w3 = await d.beginWrite('/h3.txt', { expectedHashes: { sha1: hex('sha1', 'other') } });
      await w3.pipeFrom(Readable.from([data]));
      await rejectsKind(w3.commit(), 'hash_mismatch', 'declared mismatch');
      await rejectsKind(d.stat('/h3.txt'), 'not_found', 'mismatch leaves nothing');
      // supplied hash contradicting the computed one
      const w4 = await d.beginWrite('/h4.txt');
      await w4.pipeFrom(Readable.from([data]));
      await rejectsKind(w4.commit({ hashes: { md5: hex('md5', 'x') } }), 'hash_mismatch', 'supplied mismatch');
      await nothingLeft('hashes');
      // overwriting replaces the hashes
      const data2 = Buffer.from('new content');
      await writeFile(d, '/h.txt', data2);
      assert.equal((await d.hashes('/h.txt')).sha256, hex('sha256', data2));
      // hashes follow moves and copies
      await d.move('/h.txt', '/moved.txt');
      assert.equal((await d.hashes('/moved.txt')).sha1, hex('sha1', data2));
      await d.copy('/moved.txt', '/copied.txt');
      assert.equal((await d.hashes('/copied.txt')).md5, hex('md5', data2));
    });

    it('not_found / type errors', async () => {
      await fresh();
      await writeFile(d, '/file', 'x');
      await d.mkdir('/folder');
      await rejectsKind(d.stat('/missing'), 'not_found', 'stat');
      await rejectsKind(d.read('/missing'), 'not_found', 'read');
      await rejectsKind(d.list('/missing'), 'not_found', 'list');
      await rejectsKind(d.hashes('/missing'), 'not_found', 'hashes');
      await rejectsKind(d.remove('/missing/deeper'), 'not_found', 'remove');
      await rejectsKind(d.list('/file'), 'not_a_directory', 'list file');
      await rejectsKind(d.read('/folder'), 'is_a_directory', 'read folder');
      await rejectsKind(d.beginWrite('/folder'), 'is_a_directory', 'write over folder');
      await rejectsKind(d.beginWrite('/file/child'), 'not_a_directory', 'write under file');
      await rejectsKind(d.beginWrite('/'), 'is_a_directory', 'write root');
    });

    it('refuses unsafe paths', async () => {
      await fresh();
      for (const p of ['/a/../b', '/..', 'relative', '/a\0b', '/a//b', '/./a', '/.ferry-tmp-x']) {
        await rejectsKind(d.stat(p), 'invalid_path', JSON.stringify(p));
      }
      await rejectsKind(d.beginWrite('/x/../../etc/passwd'), 'invalid_path', 'write traversal');
      await rejectsKind(d.remove('/..'), 'invalid_path', 'remove traversal');
    });

    it('concurrent writes of the same path: last commit wins, never a mix', async () => {
      await fresh();
      const N = 4;
      const size = 256 * 1024;
      const datas = Array.from({ length: N }, (_, i) => Buffer.alloc(size, 65 + i));
      const ws = await Promise.all(datas.map(() => d.beginWrite('/race.bin')));
      // interleave chunks from all writers
      for (let off = 0; off < size; off += 16 * 1024) {
        await Promise.all(ws.map((w, i) => new Promise<void>((r) => (w.stream.write(datas[i]!.subarray(off, off + 16 * 1024)) ? r() : w.stream.once('drain', r)))));
      }
      // sequential commits: the last one wins
      for (const w of ws) await w.commit();
      assert.ok((await readAll(d, '/race.bin')).equals(datas[N - 1]!), 'last sequential commit must win');
      assert.equal((await d.hashes('/race.bin')).sha256, hex('sha256', datas[N - 1]!));
      // parallel commits: exactly one writer's bytes, hashes consistent with them
      const ws2 = await Promise.all(datas.map(() => d.beginWrite('/race.bin')));
      await Promise.all(ws2.map((w, i) => w.pipeFrom(chunked(datas[i]!, 8 * 1024))));
      await Promise.all(ws2.map((w) => w.commit()));
      const got = await readAll(d, '/race.bin');
      const idx = datas.findIndex((x) => x.equals(got));
      assert.ok(idx >= 0, 'content must equal exactly one writer');
      assert.equal((await d.hashes('/race.bin')).sha256, hex('sha256', got));
      assert.deepEqual(names(await d.list('/')), ['race.bin']);
      await nothingLeft('race');
    });

    it('describes its capabilities', () => {
      assert.deepEqual([...d.capabilities.hashes].sort(), ['md5', 'sha1', 'sha256']);
      assert.equal(typeof d.capabilities.streamable, 'boolean');
    });
  });
}
