/**
 * The SFTP session guard (sftp.guard.ts) without a network or database: a fake users repo
 * and a fake clock. It re-reads the database at most once per REVALIDATE_MS however many
 * requests arrive, shares one query between the requests that arrive while it runs, makes a
 * revocation final (no more queries, listeners told once) and treats a database error as a
 * passing failure. The real query runs on both databases in test/hostile/sftp-revocation.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { REVALIDATE_MS, SessionGuard, type Verdict } from '../../src/modules/sftp/sftp.guard.js';
import { Perm, Role, type User } from '../../src/modules/users/user.model.js';

const user: User = {
  id: 7,
  username: 'g',
  pwdHash: 'h',
  salt: 's',
  pwdTs: 1000,
  basePath: '/home',
  role: Role.GENERAL,
  disabled: false,
  permission: (1 << Perm.SFTP_READ) | (1 << Perm.SFTP_WRITE),
  otpSecret: '',
  ssoId: '',
};

function fixture(keyId: number | null = 3, appPasswordId: number | null = null) {
  let t = 0;
  let state: { user: User; keyPresent: boolean; appPasswordPresent?: boolean } | null | Error = { user, keyPresent: true, appPasswordPresent: appPasswordId !== null };
  let queries = 0;
  const users = {
    byUsername: async () => null,
    withKey: async (id: number, k: number | null, a: number | null = null) => {
      queries++;
      assert.equal(id, user.id);
      assert.equal(k, keyId);
      assert.equal(a, appPasswordId);
      if (state instanceof Error) throw state;
      return state && { appPasswordPresent: false, ...state };
    },
  };
  const guard = new SessionGuard({ users }, { user, keyId, appPasswordId }, () => t);
  return {
    guard,
    tick: (ms: number) => (t += ms),
    set: (s: typeof state) => (state = s),
    queries: () => queries,
  };
}

const settle = async (v: Verdict | Promise<Verdict>) => (v instanceof Promise ? await v : v);
const nextTurn = () => new Promise((r) => setImmediate(r));

describe('SFTP session guard', () => {
  test('fresh verdicts are answered without a query; one query per interval, shared by concurrent requests', async () => {
    const f = fixture();
    for (let i = 0; i < 100; i++) assert.deepEqual(f.guard.current(), { ok: true, user, writable: true });
    assert.equal(f.queries(), 0);
    f.tick(REVALIDATE_MS);
    const a = f.guard.current();
    const b = f.guard.current();
    assert.ok(a instanceof Promise);
    assert.equal(a, b);
    assert.equal((await settle(a)).ok, true);
    assert.equal(f.queries(), 1);
    assert.equal(f.guard.current() instanceof Promise, false);
  });

  for (const [what, change, reason] of [
    ['deleted', () => null, /deleted/],
    ['disabled', () => ({ user: { ...user, disabled: true }, keyPresent: true }), /disabled/],
    ['bit 10 removed', () => ({ user: { ...user, permission: 1 << Perm.SFTP_WRITE }, keyPresent: true }), /SFTP/],
    ['password changed', () => ({ user: { ...user, pwdTs: 2000 }, keyPresent: true }), /password/],
    ['login key removed', () => ({ user, keyPresent: false }), /key/],
    ['base path changed', () => ({ user: { ...user, basePath: '/other' }, keyPresent: true }), /base path/],
  ] as const) {
    test(`${what}: the verdict is final, listeners run once, no more queries`, async () => {
      const f = fixture();
      const told: string[] = [];
      f.guard.onRevoked((r) => told.push(r));
      f.set(change());
      f.tick(REVALIDATE_MS);
      const v = await settle(f.guard.current());
      assert.equal(v.ok, false);
      assert.ok(!v.ok && v.final);
      assert.match(!v.ok ? v.reason : '', reason);
      await nextTurn();
      assert.equal(told.length, 1);
      f.set({ user, keyPresent: true }); // even if the rights came back
      f.tick(10 * REVALIDATE_MS);
      assert.equal((await settle(f.guard.current())).ok, false);
      await nextTurn();
      assert.equal(f.queries(), 1);
      assert.equal(told.length, 1);
    });
  }

  test('bit 11 removed: the session stays, not writable; the same base path spelled otherwise is no change', async () => {
    const f = fixture();
    f.set({ user: { ...user, permission: 1 << Perm.SFTP_READ, basePath: '/home/' }, keyPresent: true });
    f.tick(REVALIDATE_MS);
    const v = await settle(f.guard.current());
    assert.ok(v.ok);
    assert.equal(v.ok && v.writable, false);
  });

  test('a password login does not depend on keys; an admin needs no bits', async () => {
    const f = fixture(null);
    f.set({ user: { ...user, role: Role.ADMIN, permission: 0 }, keyPresent: false });
    f.tick(REVALIDATE_MS);
    const v = await settle(f.guard.current());
    assert.ok(v.ok && v.writable);
  });

  test('a database error refuses that request only; the next one asks again', async () => {
    const f = fixture();
    f.set(new Error('connection refused'));
    f.tick(REVALIDATE_MS);
    const v = await settle(f.guard.current());
    assert.ok(!v.ok && !v.final);
    f.set({ user, keyPresent: true });
    const again = await settle(f.guard.current());
    assert.equal(again.ok, true);
    assert.equal(f.queries(), 2);
  });

  test('a session logged in with an app password ends when that app password is revoked', async () => {
    const f = fixture(null, 7);
    f.tick(REVALIDATE_MS + 1);
    assert.equal((await settle(f.guard.current())).ok, true);
    f.set({ user, keyPresent: false, appPasswordPresent: false });
    f.tick(REVALIDATE_MS + 1);
    const v = await settle(f.guard.current());
    assert.ok(!v.ok && v.final);
    assert.match(v.reason, /app password/);
  });
});
