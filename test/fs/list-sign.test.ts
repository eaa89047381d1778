/**
 * Listing signs (issue #17): the batch signer a listing uses gives exactly OpenList's
 * `base64url(HMAC-SHA256(key, "<path>:<expire>")):<expire>` (checked against node:crypto's createHmac) for
 * short, block-sized and long keys and for long and non-ASCII paths, and one signer signs many paths in a row.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { pathSigner, signPath, verifySign } from '../../src/modules/fs/sign.js';

const reference = (key: string, path: string, expire: number) =>
  `${createHmac('sha256', key).update(`${path}:${expire}`).digest('base64').replace(/\+/g, '-').replace(/\//g, '_')}:${expire}`;

const KEYS = ['', 'k', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(65), randomBytes(200).toString('base64'), 'clé-ключ-鍵-🔑'];
const PATHS = ['/', '/a.txt', '/list/f000001.txt', '/ünï/café\u0301.txt', '/🎞/'.repeat(300) + 'x', '/' + 'é'.repeat(2000), '/tab\there/"quote"', '/lone\ud800surrogate'];

test('the batch signer equals HMAC-SHA256 of "<path>:<expire>" for every key and path, many in a row', () => {
  for (const key of KEYS) {
    for (const expire of [0, 1893456000]) {
      const sign = pathSigner(key, expire);
      // twice through the same signer: its reused buffers must not carry one path into the next
      for (const path of [...PATHS, ...PATHS.slice().reverse()]) assert.equal(sign(path), reference(key, path, expire), `${key.length}-char key, ${path.slice(0, 20)}`);
      assert.equal(signPath(key, PATHS[2]!, expire), reference(key, PATHS[2]!, expire));
    }
  }
});

test('a batch sign verifies for its path only', () => {
  const sign = pathSigner('token-1', 0);
  const a = sign('/d/a.txt');
  assert.doesNotThrow(() => verifySign('token-1', '/d/a.txt', a));
  assert.throws(() => verifySign('token-1', '/d/b.txt', a), /sign invalid/);
  assert.throws(() => verifySign('token-2', '/d/a.txt', a), /sign invalid/);
});
