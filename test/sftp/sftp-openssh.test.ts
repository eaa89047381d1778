/**
 * SFTP with the real OpenSSH client (`sftp -b`), on both databases, against an in-process
 * Ferry started with FERRY_SFTP_LISTEN (port 0 = a free port). Keys come from ssh-keygen
 * and are registered over HTTP, as a user would.
 */
import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachDialect, type Harness } from '../support/harness.js';
import { keygen, scanHostKeys, scratchDir, SFTP_READ, SFTP_WRITE, sftpBatch, sha256File, type Key } from './support.js';

const BIG = 50 * 1024 * 1024;
const T = { timeout: 180_000 };

let work: string | null = null;
function workDir(): string {
  work ??= scratchDir();
  return work;
}
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A file of `size` random bytes in the scratch dir (made once per name). */
function randomFile(name: string, size: number): string {
  const p = join(workDir(), name);
  if (existsSync(p)) return p;
  const block = Buffer.alloc(1 << 20);
  const parts: Buffer[] = [];
  for (let off = 0; off < size; off += block.length) parts.push(Buffer.from(randomFillSync(block).subarray(0, Math.min(block.length, size - off))));
  writeFileSync(p, Buffer.concat(parts));
  return p;
}

/** sftp's output without the echoed batch commands. */
const output = (stdout: string) => stdout.split('\n').filter((l) => !l.startsWith('sftp> ')).join('\n');

interface KeyItem {
  id: number;
  title: string;
  fingerprint: string;
  added_time: string;
  last_used_time: string;
}

forEachDialect('sftp with the OpenSSH client', (h: () => Harness) => {
  const files = () => join(h().dataDir, 'files');
  const port = () => h().sftp!.address.port;
  const tokens: Record<string, string> = {};
  const keys = {
    ed25519: () => keygen('alice-ed25519', 'ed25519'),
    rsa: () => keygen('alice-rsa3072', 'rsa', 3072),
    ecdsa: () => keygen('alice-ecdsa', 'ecdsa', 256),
    uwe: () => keygen('uwe-ed25519', 'ed25519'),
    reader: () => keygen('reader-ed25519', 'ed25519'),
    nosftp: () => keygen('nosftp-ed25519', 'ed25519'),
    dis: () => keygen('dis-ed25519', 'ed25519'),
  };
  const userIds: Record<string, number> = {};

  async function addKey(user: string, title: string, key: Key): Promise<void> {
    const r = await h().post('/api/me/sshkey/add', { title, key: key.pub }, { token: tokens[user] });
    assert.equal(r.status, 200, r.body.message);
  }
  async function listKeys(user: string): Promise<KeyItem[]> {
    const r = await h().get('/api/me/sshkey/list', { token: tokens[user] });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data.content as KeyItem[];
  }
  async function updateUser(name: string, patch: Record<string, unknown>): Promise<void> {
    const r = await h().post('/api/admin/user/update', { id: userIds[name], username: name, ...patch }, { token: await h().adminToken() });
    assert.equal(r.status, 200, r.body.message);
  }

  before(async () => {
    const admin = await h().adminToken();
    for (const d of ['/home/u', '/pub']) assert.equal((await h().post('/api/fs/mkdir', { path: d }, { token: admin })).status, 200);
    writeFileSync(join(files(), 'top-secret.txt'), 'secret at the root\n');
    writeFileSync(join(files(), 'home', 'other.txt'), 'beside the base path\n');
    writeFileSync(join(files(), 'home', 'u', 'mine.txt'), 'inside the base path\n');
    writeFileSync(join(files(), 'pub', 'readme.txt'), 'public text\n');
    const users: Array<[string, Record<string, unknown>]> = [
      ['alice', { permission: SFTP_READ | SFTP_WRITE, base_path: '/' }],
      ['uwe', { permission: SFTP_READ | SFTP_WRITE, base_path: '/home/u' }],
      ['reader', { permission: SFTP_READ, base_path: '/pub' }],
      ['nosftp', { permission: 0xffff & ~SFTP_READ & ~SFTP_WRITE, base_path: '/' }],
      ['dis', { permission: SFTP_READ | SFTP_WRITE, base_path: '/' }],
    ];
    for (const [name, extra] of users) {
      userIds[name] = await h().createUser(name, `${name}-password-1`, extra);
      tokens[name] = await h().login(name, `${name}-password-1`);
    }
    await addKey('alice', 'ed25519', keys.ed25519());
    await addKey('alice', 'rsa 3072', keys.rsa());
    await addKey('alice', 'ecdsa', keys.ecdsa());
    await addKey('uwe', 'laptop', keys.uwe());
    await addKey('reader', 'laptop', keys.reader());
    await addKey('nosftp', 'laptop', keys.nosftp());
    await addKey('dis', 'laptop', keys.dis());
  });

  test('the server listens and presents its host keys (ed25519 and rsa) from <data dir>/ssh', T, async () => {
    const scanned = await scanHostKeys(port());
    const onDisk = ['ssh_host_ed25519_key.pub', 'ssh_host_rsa_key.pub']
      .map((f) => readFileSync(join(h().dataDir, 'ssh', f), 'utf8').trim().split(/\s+/).slice(0, 2).join(' '))
      .sort();
    assert.deepEqual(scanned, onDisk);
    assert.equal(scanned.length, 2);
    assert.ok(scanned.some((k) => k.startsWith('ssh-ed25519 ')));
    assert.ok(scanned.some((k) => k.startsWith('ssh-rsa ')));
    for (const f of ['ssh_host_ed25519_key', 'ssh_host_rsa_key']) {
      assert.equal(statSync(join(h().dataDir, 'ssh', f)).mode & 0o777, 0o600, f);
    }
  });

  for (const [kind, title] of [['ed25519', 'ed25519'], ['rsa', 'rsa 3072'], ['ecdsa', 'ecdsa']] as const) {
    test(`a registered ${title} key logs in; only its last_used_time advances`, T, async () => {
      const before = await listKeys('alice');
      await new Promise((r) => setTimeout(r, 10));
      const r = await sftpBatch(port(), keys[kind](), 'alice', ['pwd', 'bye']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Remote working directory: \/\n/);
      const after = await listKeys('alice');
      assert.equal(after.length, before.length);
      for (const k of after) {
        const was = before.find((b) => b.id === k.id)!;
        if (k.title === title) assert.ok(Date.parse(k.last_used_time) > Date.parse(was.last_used_time), `${title}: ${was.last_used_time} → ${k.last_used_time}`);
        else assert.equal(k.last_used_time, was.last_used_time, `${k.title} must not change`);
        assert.equal(k.added_time, was.added_time);
      }
    });
  }

  test('put and get a 50 MB file: the bytes are equal; ls -l shows it; nothing temporary is left', T, async () => {
    const src = randomFile('big.bin', BIG);
    const back = join(workDir(), `big-back-${h().dialect}.bin`);
    const r = await sftpBatch(port(), keys.ed25519(), 'alice', [`put ${src} /big.bin`, 'ls -l /', `get /big.bin ${back}`, 'bye'], 170_000);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.timedOut, false);
    assert.equal(statSync(join(files(), 'big.bin')).size, BIG);
    const want = await sha256File(src);
    assert.equal(await sha256File(join(files(), 'big.bin')), want, 'stored bytes differ');
    assert.equal(await sha256File(back), want, 'downloaded bytes differ');
    assert.match(r.stdout, new RegExp(`^-rw-r--r-- +1 alice +alice +${BIG} \\w{3} [ \\d]\\d (\\d\\d:\\d\\d|  \\d{4}) big\\.bin$`, 'm'));
    assert.match(r.stdout, /^drwxr-xr-x +2 alice +alice +0 .* home$/m);
    assert.deepEqual(readdirSync(files()).filter((n) => n.startsWith('.ferry-tmp')), []);
    // The same file over HTTP is the same object.
    const got = await h().post('/api/fs/get', { path: '/big.bin' }, { token: tokens.alice });
    assert.equal(got.status, 200, got.body.message);
    assert.equal(got.body.data.size, BIG);
    // The hash index was recorded on the way in (the upload's one pass, on the worker engine).
    const body = readFileSync(src);
    const digest = (alg: string) => createHash(alg).update(body).digest('hex');
    assert.deepEqual(got.body.data.hash_info, { md5: digest('md5'), sha1: digest('sha1'), sha256: want });
  });

  test('mkdir, put, rename, ls, rm, rmdir', T, async () => {
    const small = randomFile('small.bin', 4096);
    const r1 = await sftpBatch(port(), keys.ed25519(), 'alice', [
      'mkdir /work',
      'mkdir /work/sub',
      `put ${small} /work/a.bin`,
      'rename /work/a.bin /work/b.bin',
      'rename /work/b.bin /work/sub/c.bin',
      'ls /work',
      'ls -l /work/sub',
      'bye',
    ]);
    assert.equal(r1.code, 0, r1.stderr);
    assert.ok(statSync(join(files(), 'work', 'sub')).isDirectory());
    assert.ok(!existsSync(join(files(), 'work', 'a.bin')));
    assert.ok(!existsSync(join(files(), 'work', 'b.bin')));
    assert.deepEqual(readFileSync(join(files(), 'work', 'sub', 'c.bin')), readFileSync(small));
    assert.match(r1.stdout, /\/work\/sub/);
    assert.match(r1.stdout, /^-rw-r--r-- +1 alice +alice +4096 .* c\.bin$/m);

    // Failures are reported (and, with a leading `-`, do not stop the batch).
    const r2 = await sftpBatch(port(), keys.ed25519(), 'alice', [
      '-rmdir /work/sub',
      '-mkdir /work/sub',
      '-rm /work/nothing-here',
      '-rename /work/nothing-here /work/x',
      'rm /work/sub/c.bin',
      'rmdir /work/sub',
      'rmdir /work',
      'ls /',
      'bye',
    ]);
    assert.equal(r2.code, 0, r2.stderr);
    assert.match(r2.stderr, /rmdir "\/work\/sub": Failure/); // not empty
    assert.match(r2.stderr, /mkdir "\/work\/sub": Failure/); // exists
    assert.match(r2.stderr, /delete \/work\/nothing-here: No such file or directory/);
    assert.match(r2.stderr, /rename "\/work\/nothing-here" to "\/work\/x": No such file or directory/);
    assert.ok(!existsSync(join(files(), 'work')));
    assert.doesNotMatch(output(r2.stdout), /work/);
  });

  test('a put into a storage with seed_policy on writes the sidecars (policy as for HTTP with no headers); rename carries them', T, async () => {
    const admin = await h().adminToken();
    const root = scratchDir('ferry-sftp-seed-');
    const created = await h().post('/api/admin/storage/create', { mount_path: '/seeded', driver: 'local', seed_policy: 'on', addition: { root_folder_path: root } }, { token: admin });
    assert.equal(created.status, 200, created.body.message);
    const saved = await h().post('/api/admin/setting/save', [{ key: 'seed_format_policies', value: JSON.stringify({ oss: 'on', torrent: 'on', cas: 'off' }) }], { token: admin });
    assert.equal(saved.status, 200, saved.body.message);
    try {
      const src = randomFile('seeded.bin', 3 * 1024 * 1024 + 11);
      const r = await sftpBatch(port(), keys.ed25519(), 'alice', [`put ${src} /seeded/s.bin`, 'rename /seeded/s.bin /seeded/t.bin', 'bye']);
      assert.equal(r.code, 0, r.stderr);
      const sha1 = createHash('sha1').update(readFileSync(src)).digest('hex');
      assert.deepEqual(readdirSync(root).sort(), ['t.bin', 't.bin.oss', 't.bin.torrent']);
      const oss = JSON.parse(readFileSync(join(root, 't.bin.oss'), 'utf8')) as unknown;
      assert.match(JSON.stringify(oss), new RegExp(sha1));
      // the same put into a storage that inherits the (off) global policy writes none
      const r2 = await sftpBatch(port(), keys.ed25519(), 'alice', [`put ${src} /plain-seedless.bin`, 'bye']);
      assert.equal(r2.code, 0, r2.stderr);
      assert.ok(existsSync(join(files(), 'plain-seedless.bin')));
      assert.ok(!existsSync(join(files(), 'plain-seedless.bin.oss')));
      rmSync(join(files(), 'plain-seedless.bin'));
    } finally {
      await h().post('/api/admin/setting/save', [{ key: 'seed_format_policies', value: JSON.stringify({ oss: 'off', torrent: 'off', cas: 'off' }) }], { token: admin });
    }
  });

  test('bye ends the session at once (the server ends the SFTP stream with the client)', T, async () => {
    const r = await sftpBatch(port(), keys.ed25519(), 'alice', ['pwd', 'bye'], 20_000);
    assert.equal(r.timedOut, false, 'sftp hung at bye');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.ms < 10_000, `sftp took ${r.ms} ms`);
    // The same when the batch just ends (EOF instead of bye).
    const eof = await sftpBatch(port(), keys.ed25519(), 'alice', ['pwd'], 20_000);
    assert.equal(eof.timedOut, false);
    assert.equal(eof.code, 0, eof.stderr);
  });

  test('a key deleted over HTTP is refused at once; added again, it works at once', T, async () => {
    const ec = (await listKeys('alice')).find((k) => k.title === 'ecdsa')!;
    const del = await h().post(`/api/me/sshkey/delete?id=${ec.id}`, undefined, { token: tokens.alice });
    assert.equal(del.status, 200, del.body.message);
    const refused = await sftpBatch(port(), keys.ecdsa(), 'alice', ['pwd', 'bye'], 30_000);
    assert.equal(refused.code, 255);
    assert.match(refused.stderr, /Permission denied \(publickey/);
    assert.doesNotMatch(refused.stdout, /Remote working directory/);
    await addKey('alice', 'ecdsa again', keys.ecdsa());
    const ok = await sftpBatch(port(), keys.ecdsa(), 'alice', ['pwd', 'bye']);
    assert.equal(ok.code, 0, ok.stderr);
    // A key registered to another user does not open alice's account.
    const other = await sftpBatch(port(), keys.uwe(), 'alice', ['pwd', 'bye'], 30_000);
    assert.equal(other.code, 255);
  });

  test('base_path /home/u: the user sees it as / and cannot reach anything above it', T, async () => {
    const small = randomFile('small.bin', 4096);
    const out = join(workDir(), `escape-${h().dialect}`);
    mkdirSync(out, { recursive: true });
    const r = await sftpBatch(port(), keys.uwe(), 'uwe', [
      'pwd',
      'cd ..',
      'pwd',
      '-cd /..',
      'pwd',
      '-ls /etc',
      '-ls ..',
      `-get ../other.txt ${out}/a`,
      `-get /../top-secret.txt ${out}/b`,
      `-get ../../top-secret.txt ${out}/c`,
      `-get /top-secret.txt ${out}/d`,
      `-get %2e%2e/other.txt ${out}/e`,
      `-put ${small} ../escaped.bin`,
      `-put ${small} /../escaped.bin`,
      '-mkdir ../escaped-dir',
      '-rename mine.txt ../moved.txt',
      'ls -l /',
      `get /mine.txt ${out}/mine.txt`,
      `put ${small} /x.bin`,
      'bye',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const pwds = [...r.stdout.matchAll(/Remote working directory: (.*)/g)].map((m) => m[1]);
    assert.deepEqual(pwds, ['/', '/', '/']);
    // Nothing from above the base path was fetched or written.
    assert.deepEqual(readdirSync(out).sort(), ['mine.txt']);
    assert.equal(readFileSync(join(out, 'mine.txt'), 'utf8'), 'inside the base path\n');
    assert.ok(!existsSync(join(files(), 'home', 'escaped.bin')));
    assert.ok(!existsSync(join(files(), 'escaped.bin')));
    assert.ok(!existsSync(join(files(), 'home', 'escaped-dir')));
    assert.ok(!existsSync(join(files(), 'home', 'moved.txt')));
    assert.ok(existsSync(join(files(), 'home', 'u', 'mine.txt')));
    // `/x.bin` lands in the base path; the listing of `/` is the base path's.
    assert.deepEqual(readFileSync(join(files(), 'home', 'u', 'x.bin')), readFileSync(small));
    assert.ok(!existsSync(join(files(), 'x.bin')));
    assert.match(output(r.stdout), / mine\.txt$/m);
    assert.doesNotMatch(output(r.stdout), /top-secret|other\.txt|big\.bin/);
    // The base path itself is never shown.
    assert.doesNotMatch(r.stdout + r.stderr, /home/);
    // Each of the 11 escapes failed: reads as "not found" (the client's glob got no answer
    // it could use), writes as permission denied (`using relative path is not allowed`).
    const lines = r.stderr.trim().split(/\r?\n/);
    assert.equal(lines.length, 11, r.stderr);
    for (const l of lines) assert.match(l, /not found|Permission denied/, l);
  });

  test('a user without bit 11 reads, and every write is permission denied', T, async () => {
    const small = randomFile('small.bin', 4096);
    const out = join(workDir(), `reader-${h().dialect}`);
    mkdirSync(out, { recursive: true });
    const r = await sftpBatch(port(), keys.reader(), 'reader', [
      'ls -l',
      `get readme.txt ${out}/readme.txt`,
      `-put ${small} /new.bin`,
      `-put ${small} /readme.txt`,
      '-mkdir /newdir',
      '-rm /readme.txt',
      '-rename /readme.txt /renamed.txt',
      '-rmdir /',
      '-chmod 600 /readme.txt',
      'bye',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(out, 'readme.txt'), 'utf8'), 'public text\n');
    assert.match(r.stdout, /^-r--r--r-- +1 reader +reader +12 .* readme\.txt$/m);
    const denied = r.stderr.match(/Permission denied/g) ?? [];
    assert.equal(denied.length, 7, r.stderr);
    assert.deepEqual(readdirSync(join(files(), 'pub')), ['readme.txt']);
    assert.equal(readFileSync(join(files(), 'pub', 'readme.txt'), 'utf8'), 'public text\n');
  });

  test('without bit 10 the login is refused; with it, the same key works', T, async () => {
    const refused = await sftpBatch(port(), keys.nosftp(), 'nosftp', ['pwd', 'bye'], 30_000);
    assert.equal(refused.code, 255);
    assert.match(refused.stderr, /Permission denied/);
    await updateUser('nosftp', { permission: SFTP_READ });
    const ok = await sftpBatch(port(), keys.nosftp(), 'nosftp', ['pwd', 'bye']);
    assert.equal(ok.code, 0, ok.stderr);
    await updateUser('nosftp', { permission: 0 });
    const again = await sftpBatch(port(), keys.nosftp(), 'nosftp', ['pwd', 'bye'], 30_000);
    assert.equal(again.code, 255);
  });

  test('a disabled user is refused; enabled again, the key works', T, async () => {
    const ok = await sftpBatch(port(), keys.dis(), 'dis', ['pwd', 'bye']);
    assert.equal(ok.code, 0, ok.stderr);
    const lastUsed = (await listKeys('dis'))[0]!.last_used_time;
    await updateUser('dis', { disabled: true });
    const refused = await sftpBatch(port(), keys.dis(), 'dis', ['pwd', 'bye'], 30_000);
    assert.equal(refused.code, 255);
    assert.match(refused.stderr, /Permission denied/);
    await updateUser('dis', { disabled: false });
    tokens.dis = await h().login('dis', 'dis-password-1');
    assert.equal((await listKeys('dis'))[0]!.last_used_time, lastUsed, 'a refused login must not touch last_used_time');
    const back = await sftpBatch(port(), keys.dis(), 'dis', ['pwd', 'bye']);
    assert.equal(back.code, 0, back.stderr);
  });

  test('the host key is the same after a restart', T, async () => {
    const before = await scanHostKeys(port());
    const files0 = ['ssh_host_ed25519_key', 'ssh_host_rsa_key'].map((f) => readFileSync(join(h().dataDir, 'ssh', f), 'utf8'));
    await h().close();
    await h().open();
    const after = await scanHostKeys(port());
    assert.deepEqual(after, before);
    const files1 = ['ssh_host_ed25519_key', 'ssh_host_rsa_key'].map((f) => readFileSync(join(h().dataDir, 'ssh', f), 'utf8'));
    assert.deepEqual(files1, files0);
    // and logins still work, with keys registered before the restart
    const r = await sftpBatch(port(), keys.ed25519(), 'alice', ['ls /', 'bye']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /big\.bin/);
  });
}, { FERRY_SFTP_LISTEN: '127.0.0.1:0' });
