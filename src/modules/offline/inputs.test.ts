import assert from 'node:assert/strict';
import { test } from 'node:test';
import { magnetProblem } from './inputs.js';
import { magnetInfoHash } from './tools/tool.js';
import { verifyWebSeedToken, webSeedToken, signPath, verifySign } from '../fs/sign.js';

const HEX = '0123456789abcdef0123456789abcdef01234567';

test('magnet links: one BitTorrent info hash (hex, base32 or v2 multihash), trackers of known schemes', () => {
  assert.equal(magnetProblem(`magnet:?xt=urn:btih:${HEX}`), null);
  assert.equal(magnetProblem(`magnet:?xt=urn:btih:${HEX.toUpperCase()}&dn=a+b&tr=udp%3A%2F%2F127.0.0.1%3A6969&tr=https://t.example/announce`), null);
  assert.equal(magnetProblem('magnet:?xt=urn:btih:' + 'a'.repeat(32)), null);
  assert.equal(magnetProblem('magnet:?xt=urn:btmh:1220' + 'b'.repeat(64)), null);
  for (const [m, re] of [
    ['magnet:?dn=x', /no BitTorrent info hash/],
    [`magnet:?xt=urn:btih:${HEX}0`, /neither 40 hex/],
    ['magnet:?xt=urn:btmh:1114' + 'b'.repeat(40), /SHA-256 multihash/],
    [`magnet:?xt=urn:btih:${HEX}&tr=javascript:alert(1)`, /scheme javascript/],
    [`magnet:?xt=urn:btih:${HEX}&tr=nota url`, /spaces/],
    [`magnet:?xt=urn:btih:${HEX}&dn=%E0%A4%A`, /percent-encoding/],
    [`magnet:?xt=urn:btih:${HEX}&x`, /no value/],
    [`magnet:?xt=urn:btih:${HEX}&dn=` + 'a'.repeat(70_000), /longer than/],
  ] as const) assert.match(magnetProblem(m) ?? 'accepted', re, m.slice(0, 80));
});

test('magnet info hash: hex as is, base32 decoded', () => {
  assert.equal(magnetInfoHash(`magnet:?dn=x&xt=urn:btih:${HEX.toUpperCase()}`), HEX);
  // base32 of 20 bytes 0x00..0x13
  const raw = Buffer.from(Array.from({ length: 20 }, (_, i) => i));
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of raw) bits += b.toString(2).padStart(8, '0');
  let b32 = '';
  for (let i = 0; i < bits.length; i += 5) b32 += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  assert.equal(magnetInfoHash(`magnet:?xt=urn:btih:${b32}`), raw.toString('hex'));
  assert.equal(magnetInfoHash('magnet:?xt=urn:btmh:1220' + 'b'.repeat(64)), null);
});

test('web-seed root tokens: verify only with the key, the root and the name they were made for; never as a ?sign=', () => {
  const t = webSeedToken('key-1', '/data/movies', 'movies');
  assert.deepEqual(verifyWebSeedToken('key-1', t), { root: '/data/movies', name: 'movies' });
  assert.throws(() => verifyWebSeedToken('key-2', t), /web seed token invalid/);
  const [, mac] = t.split('.');
  assert.throws(() => verifyWebSeedToken('key-1', `${Buffer.from('/\0movies').toString('base64url')}.${mac}`), /invalid/);
  assert.throws(() => verifyWebSeedToken('key-1', 'garbage'), /invalid/);
  assert.throws(() => verifySign('key-1', '/data/movies', `${mac}:0`), /sign invalid/);
  const sign = signPath('key-1', '/data/movies\0movies', 0);
  assert.throws(() => verifyWebSeedToken('key-1', `${Buffer.from('/data/movies\0movies').toString('base64url')}.${sign.slice(0, -2)}`), /invalid/);
});
