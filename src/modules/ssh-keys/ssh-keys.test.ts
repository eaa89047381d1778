import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { requireCommand, run } from '../../../test/support/commands.js';
import { forEachDialect, type Harness } from '../../../test/support/harness.js';
import { InvalidKeyError, parsePublicKey } from './public-key.js';

const TIME_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const ITEM_KEYS = ['added_time', 'fingerprint', 'id', 'last_used_time', 'title'];

// ---------------------------------------------------------------------------
// Keys generated on the fly by ssh-keygen (shared by both dialects)
// ---------------------------------------------------------------------------
interface GenKey {
  /** `type base64 comment` as in the .pub file, without the newline. */
  line: string;
  /** The .pub file content as written by ssh-keygen (with its newline). */
  file: string;
  type: string;
  b64: string;
  /** What `ssh-keygen -lf` prints: bits and fingerprint. */
  bits: number;
  fingerprint: string;
}

let workDir: string | null = null;
const generated = new Map<string, GenKey>();

function dir(): string {
  workDir ??= mkdtempSync(join(tmpdir(), 'ferry-sshkeys-'));
  return workDir;
}

/** ssh-keygen's own fingerprint of a .pub file: `<bits> <fingerprint> <comment> (<TYPE>)`. */
function keygenFingerprint(pubFile: string): { bits: number; fingerprint: string } {
  const out = run('ssh-keygen', ['-lf', pubFile]).trim().split(/\s+/);
  assert.match(out[1]!, /^SHA256:[A-Za-z0-9+/]{43}$/);
  return { bits: Number(out[0]), fingerprint: out[1]! };
}

function genKey(name: string, type: string, bits?: number): GenKey {
  const cached = generated.get(name);
  if (cached) return cached;
  requireCommand('ssh-keygen', 'openssh-client');
  const f = join(dir(), name);
  run('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', `${name}@ferry-test`, '-f', f]);
  const file = readFileSync(`${f}.pub`, 'utf8');
  const line = file.trim();
  const [t, b64] = line.split(' ');
  const k: GenKey = { line, file, type: t!, b64: b64!, ...keygenFingerprint(`${f}.pub`) };
  generated.set(name, k);
  return k;
}

const KEY_SPECS: Array<{ name: string; type: string; bits?: number; wireType: string; wantBits: number }> = [
  { name: 'ed25519', type: 'ed25519', wireType: 'ssh-ed25519', wantBits: 256 },
  { name: 'rsa3072', type: 'rsa', bits: 3072, wireType: 'ssh-rsa', wantBits: 3072 },
  { name: 'ecdsa256', type: 'ecdsa', bits: 256, wireType: 'ecdsa-sha2-nistp256', wantBits: 256 },
  { name: 'ecdsa384', type: 'ecdsa', bits: 384, wireType: 'ecdsa-sha2-nistp384', wantBits: 384 },
  { name: 'ecdsa521', type: 'ecdsa', bits: 521, wireType: 'ecdsa-sha2-nistp521', wantBits: 521 },
];
const key = (name: string) => {
  const s = KEY_SPECS.find((k) => k.name === name);
  return s ? genKey(s.name, s.type, s.bits) : genKey(name, 'ed25519');
};

after(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------
// Hand-built security-key (sk-*) blobs
// ---------------------------------------------------------------------------
const sshString = (b: Buffer | string) => {
  const body = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
};
const expectedFingerprint = (blob: Buffer) => 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');

/** A copy with the last byte changed (for a curve point: y no longer matches x). */
const flipLast = (buf: Buffer) => {
  const out = Buffer.from(buf);
  out[out.length - 1] = out[out.length - 1]! ^ 0x01;
  return out;
};

function ed25519Raw(): Buffer {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}
function p256Point(): Buffer {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
}
function skEd25519Blob(pk = ed25519Raw(), app: string | null = 'ssh:'): Buffer {
  return Buffer.concat([sshString('sk-ssh-ed25519@openssh.com'), sshString(pk), ...(app === null ? [] : [sshString(app)])]);
}
function skEcdsaBlob(point = p256Point(), curve = 'nistp256', app: string | null = 'ssh:'): Buffer {
  return Buffer.concat([sshString('sk-ecdsa-sha2-nistp256@openssh.com'), sshString(curve), sshString(point), ...(app === null ? [] : [sshString(app)])]);
}

describe('parsePublicKey: security-key types', () => {
  test('sk-ssh-ed25519@openssh.com: type, bits, comment, canonical form and fingerprint', () => {
    const blob = skEd25519Blob();
    const b64 = blob.toString('base64');
    const p = parsePublicKey(`sk-ssh-ed25519@openssh.com ${b64} me@yubikey`);
    assert.equal(p.type, 'sk-ssh-ed25519@openssh.com');
    assert.equal(p.bits, 256);
    assert.equal(p.comment, 'me@yubikey');
    assert.equal(p.canonical, `sk-ssh-ed25519@openssh.com ${b64}`);
    assert.deepEqual(p.blob, blob);
    assert.equal(p.fingerprint, expectedFingerprint(blob));
    assert.doesNotMatch(p.fingerprint, /=/);
    assert.equal(p.fingerprint.length, 'SHA256:'.length + 43);
  });

  test('sk-ecdsa-sha2-nistp256@openssh.com: type, bits, comment, canonical form and fingerprint', () => {
    const blob = skEcdsaBlob();
    const b64 = blob.toString('base64');
    const p = parsePublicKey(`sk-ecdsa-sha2-nistp256@openssh.com ${b64}`);
    assert.equal(p.type, 'sk-ecdsa-sha2-nistp256@openssh.com');
    assert.equal(p.bits, 256);
    assert.equal(p.comment, '');
    assert.equal(p.canonical, `sk-ecdsa-sha2-nistp256@openssh.com ${b64}`);
    assert.equal(p.fingerprint, expectedFingerprint(blob));
  });

  test('an application other than "ssh:" is still a valid key', () => {
    const blob = skEd25519Blob(ed25519Raw(), 'ssh:work');
    assert.equal(parsePublicKey(`sk-ssh-ed25519@openssh.com ${blob.toString('base64')}`).fingerprint, expectedFingerprint(blob));
  });

  test('the hand-built sk keys get the same fingerprint from ssh-keygen -lf', () => {
    requireCommand('ssh-keygen', 'openssh-client');
    for (const [type, blob] of [
      ['sk-ssh-ed25519@openssh.com', skEd25519Blob()],
      ['sk-ecdsa-sha2-nistp256@openssh.com', skEcdsaBlob()],
    ] as const) {
      const line = `${type} ${blob.toString('base64')} sk@test`;
      const f = join(dir(), `sk-${type.slice(0, 8)}.pub`);
      writeFileSync(f, line + '\n');
      const kg = keygenFingerprint(f);
      assert.equal(kg.bits, 256);
      assert.equal(parsePublicKey(line).fingerprint, kg.fingerprint);
    }
  });

  test('malformed sk blobs are refused', () => {
    const bad: Array<[string, Buffer]> = [
      ['sk-ssh-ed25519@openssh.com', skEd25519Blob(ed25519Raw(), null)], // no application
      ['sk-ssh-ed25519@openssh.com', Buffer.concat([skEd25519Blob(), Buffer.from([0])])], // trailing byte
      ['sk-ssh-ed25519@openssh.com', skEd25519Blob(ed25519Raw().subarray(0, 31))], // short key
      ['sk-ecdsa-sha2-nistp256@openssh.com', skEcdsaBlob(p256Point(), 'nistp384')], // wrong curve
      ['sk-ecdsa-sha2-nistp256@openssh.com', skEcdsaBlob(p256Point().subarray(0, 64))], // short point
      ['sk-ecdsa-sha2-nistp256@openssh.com', skEcdsaBlob(Buffer.concat([Buffer.from([4]), Buffer.alloc(64)]))], // (0,0): not on the curve
      ['sk-ecdsa-sha2-nistp256@openssh.com', skEcdsaBlob(flipLast(p256Point()))], // y changed: not on the curve
      ['sk-ecdsa-sha2-nistp256@openssh.com', skEcdsaBlob(Buffer.concat([Buffer.from([2]), p256Point().subarray(1)]))], // not uncompressed form
      ['sk-ecdsa-sha2-nistp256@openssh.com', skEcdsaBlob(p256Point(), 'nistp256', null)], // no application
      ['sk-ecdsa-sha2-nistp256@openssh.com', skEd25519Blob()], // type word ≠ blob type
      ['sk-ssh-ed25519@openssh.com', skEcdsaBlob()],
      ['ssh-ed25519', skEd25519Blob()],
    ];
    for (const [type, blob] of bad) {
      assert.throws(() => parsePublicKey(`${type} ${blob.toString('base64')}`), InvalidKeyError, `${type} ${blob.length} bytes`);
    }
  });
});

// ---------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------
interface KeyItem {
  id: number;
  title: string;
  fingerprint: string;
  added_time: string;
  last_used_time: string;
}

forEachDialect('ssh keys API', (h: () => Harness) => {
  let aliceId = 0;
  let alice = '';
  let bob = '';
  let admin = '';
  const aliceKeys: KeyItem[] = [];

  const add = (token: string, title: string, k: string) => h().post('/api/me/sshkey/add', { title, key: k }, { token });
  const list = async (token: string, query = '') => {
    const r = await h().get(`/api/me/sshkey/list${query}`, { token });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data as { content: KeyItem[]; total: number };
  };
  const assertInvalidKey = async (k: string, label: string) => {
    const r = await add(alice, `bad ${label}`, k);
    assert.equal(r.status, 400, `${label}: ${r.status} ${r.body.message}`);
    assert.equal(r.body.code, 400);
    assert.equal(r.body.message, 'provided key invalid', label);
  };

  test('setup: two users, and an empty list', async () => {
    aliceId = await h().createUser('alice', 'alice-pw');
    await h().createUser('bob', 'bob-pw');
    alice = await h().login('alice', 'alice-pw');
    bob = await h().login('bob', 'bob-pw');
    admin = await h().adminToken();
    const r = await h().get('/api/me/sshkey/list', { token: alice });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { code: 200, message: 'success', data: { content: [], total: 0 } });
  });

  for (const spec of KEY_SPECS) {
    test(`adds a ${spec.name} key; the fingerprint equals ssh-keygen -lf`, async () => {
      const k = key(spec.name);
      assert.equal(k.type, spec.wireType);
      assert.equal(k.bits, spec.wantBits);
      const before = Date.now();
      const r = await add(alice, `laptop ${spec.name}`, k.line);
      const afterAdd = Date.now();
      assert.equal(r.status, 200, r.body.message);
      assert.deepEqual(r.body, { code: 200, message: 'success', data: null });
      const { content, total } = await list(alice);
      assert.equal(total, aliceKeys.length + 1);
      assert.equal(content.length, total);
      const item = content[content.length - 1]!;
      assert.deepEqual(Object.keys(item).sort(), ITEM_KEYS);
      assert.equal(item.title, `laptop ${spec.name}`);
      assert.equal(item.fingerprint, k.fingerprint);
      assert.ok(Number.isInteger(item.id) && item.id > 0);
      assert.match(item.added_time, TIME_RE);
      assert.match(item.last_used_time, TIME_RE);
      assert.equal(item.added_time, item.last_used_time);
      const t = Date.parse(item.added_time);
      assert.ok(t >= before - 1 && t <= afterAdd + 1, `added_time ${item.added_time} not within the call`);
      // earlier keys are unchanged and come first
      assert.deepEqual(content.slice(0, -1), aliceKeys);
      aliceKeys.push(item);
    });
  }

  test('security-key types are accepted over HTTP with the ssh-keygen fingerprint', async () => {
    const edBlob = skEd25519Blob();
    const ecBlob = skEcdsaBlob();
    for (const [title, type, blob] of [
      ['yubikey ed', 'sk-ssh-ed25519@openssh.com', edBlob],
      ['yubikey ec', 'sk-ecdsa-sha2-nistp256@openssh.com', ecBlob],
    ] as const) {
      const r = await add(bob, title, `${type} ${blob.toString('base64')} token`);
      assert.equal(r.status, 200, r.body.message);
    }
    const { content, total } = await list(bob);
    assert.equal(total, 2);
    assert.deepEqual(content.map((c) => [c.title, c.fingerprint]), [
      ['yubikey ed', expectedFingerprint(edBlob)],
      ['yubikey ec', expectedFingerprint(ecBlob)],
    ]);
  });

  test('the whole .pub file content (with its newline) is accepted', async () => {
    const k = key('extra-ed25519');
    const r = await add(alice, 'pasted file', k.file);
    assert.equal(r.status, 200, r.body.message);
    const { content } = await list(alice);
    const item = content[content.length - 1]!;
    assert.equal(item.title, 'pasted file');
    assert.equal(item.fingerprint, k.fingerprint);
    aliceKeys.push(item);
  });

  test('list is ordered by id, has total, and pages', async () => {
    const { content, total } = await list(alice);
    assert.equal(total, 6);
    assert.deepEqual(content, aliceKeys);
    const ids = content.map((c) => c.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.equal(new Set(ids).size, ids.length);
    const page2 = await list(alice, '?page=2&per_page=2');
    assert.equal(page2.total, 6);
    assert.deepEqual(page2.content, aliceKeys.slice(2, 4));
    const page4 = await list(alice, '?page=4&per_page=2');
    assert.equal(page4.total, 6);
    assert.deepEqual(page4.content, []);
    // the key text and the owner never leave the server
    const raw = JSON.stringify((await h().get('/api/me/sshkey/list', { token: alice })).body);
    assert.ok(!raw.includes(key('ed25519').b64), 'key text leaked');
    assert.ok(!raw.includes('user_id') && !raw.includes('key_text'));
  });

  test('invalid keys are 400 "provided key invalid"', async () => {
    const ed = key('ed25519');
    const rsa = key('rsa3072');
    const ec256 = key('ecdsa256');
    const rsa1024 = genKey('rsa1024', 'rsa', 1024);
    assert.equal(rsa1024.bits, 1024);
    const cases: Array<[string, string]> = [
      ['truncated base64 (blob cut short)', `ssh-ed25519 ${ed.b64.slice(0, -8)}`],
      ['truncated base64 (not a multiple of 4)', `ssh-ed25519 ${ed.b64.slice(0, -1)}`],
      ['truncated rsa', `ssh-rsa ${rsa.b64.slice(0, 200)}`],
      ['truncated ecdsa', `ecdsa-sha2-nistp256 ${ec256.b64.slice(0, 100)}`],
      ['ssh-rsa word with an ed25519 blob', `ssh-rsa ${ed.b64}`],
      ['ssh-ed25519 word with an rsa blob', `ssh-ed25519 ${rsa.b64}`],
      ['nistp384 word with a nistp256 blob', `ecdsa-sha2-nistp384 ${ec256.b64}`],
      ['ed25519 blob with a trailing byte', `ssh-ed25519 ${Buffer.concat([Buffer.from(ed.b64, 'base64'), Buffer.from([0])]).toString('base64')}`],
      ['rsa 1024', rsa1024.line],
      ...(['ecdsa256', 'ecdsa384', 'ecdsa521'] as const).map((n): [string, string] => {
        const k = key(n);
        return [`${n} point not on the curve`, `${k.type} ${flipLast(Buffer.from(k.b64, 'base64')).toString('base64')}`];
      }),
      ['garbage text', 'this is not a key'],
      ['garbage base64', 'ssh-ed25519 AAAAAAAAAAAAAAAA'],
      ['non-base64 characters', 'ssh-ed25519 ****'],
      ['type only', 'ssh-ed25519'],
      ['unknown type', `ssh-dss ${ed.b64}`],
      ['empty string', ''],
      ['whitespace only', '   \n '],
      ['two lines', `${ed.line}\n${ec256.line}`],
      ['two lines (CRLF)', `${ed.line}\r\n${ed.line}`],
      ['private key text', readFileSync(join(dir(), 'ed25519'), 'utf8')],
    ];
    for (const [label, k] of cases) await assertInvalidKey(k, label);
    // nothing was stored
    assert.equal((await list(alice)).total, aliceKeys.length);
  });

  test('title: empty, blank or over 64 characters is 400; exactly 64 is fine', async () => {
    const k = key('title-ed25519');
    for (const title of ['', '   ', 'x'.repeat(65), 'é'.repeat(65)]) {
      const r = await add(alice, title, k.line);
      assert.equal(r.status, 400, `title ${JSON.stringify(title)}`);
      assert.equal(r.body.code, 400);
      assert.match(r.body.message, /title/);
    }
    const missing = await h().post('/api/me/sshkey/add', { key: k.line }, { token: alice });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /title/);
    assert.equal((await list(alice)).total, aliceKeys.length);
    const ok64 = await add(alice, 't'.repeat(64), k.line);
    assert.equal(ok64.status, 200, ok64.body.message);
    const { content } = await list(alice);
    const item = content[content.length - 1]!;
    assert.equal(item.title, 't'.repeat(64));
    assert.equal(item.fingerprint, k.fingerprint);
    aliceKeys.push(item);
  });

  test('same title again, or the same key under another title, is 409', async () => {
    const fresh = key('dup-ed25519');
    const sameTitle = await add(alice, 'laptop ed25519', fresh.line);
    assert.equal(sameTitle.status, 409);
    assert.equal(sameTitle.body.code, 409);
    const sameKey = await add(alice, 'another title', key('rsa3072').line);
    assert.equal(sameKey.status, 409);
    assert.equal(sameKey.body.code, 409);
    // the comment does not make it another key
    const [t, b64] = key('ecdsa384').line.split(' ');
    const otherComment = await add(alice, 'third title', `${t} ${b64} some-other-comment`);
    assert.equal(otherComment.status, 409);
    const noComment = await add(alice, 'fourth title', `${t} ${b64}`);
    assert.equal(noComment.status, 409);
    assert.deepEqual((await list(alice)).content, aliceKeys);
  });

  test('the same key and title for ANOTHER user is allowed', async () => {
    const ed = key('ed25519');
    const r = await add(bob, 'laptop ed25519', ed.line);
    assert.equal(r.status, 200, r.body.message);
    const { content } = await list(bob);
    const item = content.find((c) => c.title === 'laptop ed25519');
    assert.ok(item);
    assert.equal(item.fingerprint, ed.fingerprint);
    assert.notEqual(item.id, aliceKeys[0]!.id);
    assert.deepEqual((await list(alice)).content, aliceKeys);
  });

  test('delete: another user\'s key is 404, bad ids 400, unknown 404, own key 200 and gone', async () => {
    const victim = aliceKeys[0]!;
    const other = await h().post(`/api/me/sshkey/delete?id=${victim.id}`, undefined, { token: bob });
    assert.equal(other.status, 404);
    assert.deepEqual(other.body, { code: 404, message: 'failed to get public key', data: null });
    assert.deepEqual((await list(alice)).content, aliceKeys);

    for (const q of ['?id=abc', '?id=1.5', '?id=', '']) {
      const r = await h().post(`/api/me/sshkey/delete${q}`, undefined, { token: alice });
      assert.equal(r.status, 400, `delete${q}: ${r.status}`);
      assert.equal(r.body.code, 400);
    }
    // Integers that name no key (zero, negative) are unknown ids, not malformed ones.
    for (const q of ['?id=-1', '?id=0']) {
      const r = await h().post(`/api/me/sshkey/delete${q}`, undefined, { token: alice });
      assert.equal(r.status, 404, `delete${q}: ${r.status}`);
    }

    const unknown = await h().post('/api/me/sshkey/delete?id=999999', undefined, { token: alice });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.message, 'failed to get public key');

    const own = await h().post(`/api/me/sshkey/delete?id=${victim.id}`, undefined, { token: alice });
    assert.equal(own.status, 200, own.body.message);
    assert.deepEqual(own.body, { code: 200, message: 'success', data: null });
    aliceKeys.shift();
    const after = await list(alice);
    assert.deepEqual(after.content, aliceKeys);
    assert.equal(after.total, aliceKeys.length);
    assert.ok(!after.content.some((c) => c.id === victim.id));
    const again = await h().post(`/api/me/sshkey/delete?id=${victim.id}`, undefined, { token: alice });
    assert.equal(again.status, 404);
    // bob's copy of the same key is untouched
    assert.ok((await list(bob)).content.some((c) => c.fingerprint === victim.fingerprint));
    // after deletion the key and title can be added again
    const readd = await add(alice, victim.title, key('ed25519').line);
    assert.equal(readd.status, 200, readd.body.message);
    const { content } = await list(alice);
    const item = content[content.length - 1]!;
    assert.ok(item.id > victim.id);
    assert.equal(item.fingerprint, victim.fingerprint);
    aliceKeys.push(item);
  });

  test('guest: 403 while enabled, 401 while disabled', async () => {
    const users = (await h().get('/api/admin/user/list', { token: admin })).body.data.content as Array<{ id: number; username: string; role: number }>;
    const guest = users.find((u) => u.role === 1)!;
    assert.equal(guest.username, 'guest');
    const setGuest = async (disabled: boolean) => {
      const r = await h().post('/api/admin/user/update', { id: guest.id, username: 'guest', disabled }, { token: admin });
      assert.equal(r.status, 200, r.body.message);
    };
    const calls = () => [
      h().get('/api/me/sshkey/list'),
      h().post('/api/me/sshkey/add', { title: 'guest key', key: key('ed25519').line }),
      h().post(`/api/me/sshkey/delete?id=${aliceKeys[0]!.id}`),
    ];
    for (const r of await Promise.all(calls())) {
      assert.equal(r.status, 401);
      assert.equal(r.body.message, 'Guest user is disabled, login please');
    }
    await setGuest(false);
    try {
      for (const r of await Promise.all(calls())) {
        assert.equal(r.status, 403);
        assert.equal(r.body.code, 403);
      }
    } finally {
      await setGuest(true);
    }
    for (const r of await Promise.all(calls())) assert.equal(r.status, 401);
    assert.deepEqual((await list(alice)).content, aliceKeys);
  });

  test('admin: list another user\'s keys, delete any key; non-admins get 403', async () => {
    const r = await h().get(`/api/admin/user/sshkey/list?uid=${aliceId}`, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(r.body.data, { content: aliceKeys, total: aliceKeys.length });
    const paged = await h().get(`/api/admin/user/sshkey/list?uid=${aliceId}&page=1&per_page=1`, { token: admin });
    assert.deepEqual(paged.body.data, { content: aliceKeys.slice(0, 1), total: aliceKeys.length });

    const unknownUser = await h().get('/api/admin/user/sshkey/list?uid=999999', { token: admin });
    assert.equal(unknownUser.status, 404);
    const badUid = await h().get('/api/admin/user/sshkey/list?uid=x', { token: admin });
    assert.equal(badUid.status, 400);

    const target = aliceKeys[1]!;
    for (const token of [alice, bob]) {
      const l = await h().get(`/api/admin/user/sshkey/list?uid=${aliceId}`, { token });
      assert.equal(l.status, 403);
      assert.equal(l.body.code, 403);
      const d = await h().post(`/api/admin/user/sshkey/delete?id=${target.id}`, undefined, { token });
      assert.equal(d.status, 403);
    }
    assert.deepEqual((await list(alice)).content, aliceKeys);

    const del = await h().post(`/api/admin/user/sshkey/delete?id=${target.id}`, undefined, { token: admin });
    assert.equal(del.status, 200, del.body.message);
    aliceKeys.splice(1, 1);
    assert.deepEqual((await list(alice)).content, aliceKeys);
    const again = await h().post(`/api/admin/user/sshkey/delete?id=${target.id}`, undefined, { token: admin });
    assert.equal(again.status, 404);
    assert.equal(again.body.message, 'failed to get public key');
    const bad = await h().post('/api/admin/user/sshkey/delete?id=abc', undefined, { token: admin });
    assert.equal(bad.status, 400);
  });
});
