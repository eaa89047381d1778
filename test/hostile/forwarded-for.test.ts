/**
 * FERRY_TRUST_PROXY (issue #16, item 8): the client address behind a proxy is the one the trusted proxy saw,
 * never the left-most X-Forwarded-For entry a client wrote itself, so the per-address login lockout holds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { forEachDialect, type Harness } from '../support/harness.js';

test('FERRY_TRUST_PROXY: false, a hop count (true = 1), or a list of proxy addresses; anything else is refused', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ FERRY_TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(loadConfig({ FERRY_TRUST_PROXY: 'true' }).trustProxy, 1);
  assert.equal(loadConfig({ FERRY_TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ FERRY_TRUST_PROXY: '10.0.0.0/8, loopback,::1,fd00::/8' }).trustProxy, ['10.0.0.0/8', 'loopback', '::1', 'fd00::/8']);
  for (const bad of ['maybe', '1.2.3.4/33', '10.0.0.0/8/1', 'proxy.example', '99']) {
    assert.throws(() => loadConfig({ FERRY_TRUST_PROXY: bad }), (e: unknown) => e instanceof ConfigError && /FERRY_TRUST_PROXY/.test(e.problems.join()), bad);
  }
});

/** Wrong passwords for distinct usernames, each with its own forged left-most entry; the real client is `client`. */
async function guesses(h: Harness, n: number, via: string, client: string, tag: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await h.post(
      '/api/auth/login',
      { username: `${tag}-${i}`, password: 'wrong-password' },
      { remoteAddress: via, headers: { 'x-forwarded-for': `192.0.2.${i + 1}, ${client}` } },
    );
    out.push(r.status);
  }
  return out;
}

for (const [title, env] of [
  ['FERRY_TRUST_PROXY=true (one hop)', 'true'],
  ['FERRY_TRUST_PROXY=<proxy address>', '127.0.0.1'],
] as const) {
  forEachDialect(`forwarded addresses: ${title}`, (h) => {
    test('forged left-most X-Forwarded-For entries do not dodge the per-address lockout', async () => {
      const statuses = await guesses(h(), 6, '127.0.0.1', '203.0.113.7', 'forged');
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
      // another real client behind the same proxy is not locked
      const other = await h().post('/api/auth/login', { username: 'admin', password: 'wrong-password' }, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.8' } });
      assert.equal(other.status, 401);
    });
  }, { FERRY_TRUST_PROXY: env });
}

forEachDialect('forwarded addresses: a client that is not a trusted proxy', (h) => {
  test('its own X-Forwarded-For is ignored: the socket address is locked out', async () => {
    const statuses = await guesses(h(), 6, '198.51.100.9', '203.0.113.9', 'direct');
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
  });
}, { FERRY_TRUST_PROXY: '127.0.0.1' });
