import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { decodeJwt } from 'jose';
import { forEachDialect } from '../../../test/support/harness.js';
import { Tokens } from './tokens.js';

/** Status and message of a rejected verify. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return `${(e as { code?: number }).code} ${(e as Error).message}`;
  }
  return 'accepted';
}

forEachDialect('tokens: verified once, still checked every time', (h) => {
  const setup = () => {
    let clock = Date.UTC(2030, 0, 1);
    const tokens = new Tokens(h().ctx.database.db, randomBytes(32), () => clock);
    return { tokens, at: (ms: number) => (clock = ms), clock: () => clock };
  };

  test('a token seen before still expires on time, and is not active before nbf', async () => {
    const { tokens, at, clock } = setup();
    const t0 = clock();
    const t = await tokens.issue('admin', 1, 1);
    const { exp } = decodeJwt(t);
    assert.equal((await tokens.verify(t)).username, 'admin');
    assert.equal((await tokens.verify(t)).jti, decodeJwt(t).jti);
    at(t0 - 5000);
    assert.equal(await refusal(tokens.verify(t)), '401 token not active yet');
    at(exp! * 1000 - 1000);
    assert.equal((await tokens.verify(t)).username, 'admin');
    at(exp! * 1000);
    assert.equal(await refusal(tokens.verify(t)), '401 token is expired');
    assert.equal(await refusal(tokens.verify(t)), '401 token is expired');
  });

  test('a token seen before is refused once revoked, also when revoked by another instance (same database)', async () => {
    const { tokens } = setup();
    const other = new Tokens(h().ctx.database.db, (tokens as unknown as { key: Uint8Array }).key, Date.now);
    const t = await tokens.issue('admin', 1, 1);
    const claims = await tokens.verify(t);
    await other.revoke({ ...claims, exp: Math.floor(Date.now() / 1000) + 3600 });
    assert.equal(await refusal(tokens.verify(t)), '401 token is invalidated');
  });

  test('a tampered copy of a verified token is refused', async () => {
    const { tokens } = setup();
    const t = await tokens.issue('admin', 1, 1);
    await tokens.verify(t);
    const [head, , sig] = t.split('.');
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...decodeJwt(t), username: 'root' })).toString('base64url')}.${sig}`;
    assert.equal(await refusal(tokens.verify(forged)), '401 token is invalid');
  });
});
