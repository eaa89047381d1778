import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Doubts } from './hash-index.doubts.js';

test('doubts cover their path and below (and, asked, above), per storage, and collapse to the root past the bound', () => {
  const d = new Doubts();
  d.add(1, '/a😀');
  assert.ok(d.covers(1, '/a😀') && d.covers(1, '/a😀/x'));
  assert.ok(!d.covers(1, '/a😀x') && !d.covers(1, '/a') && !d.covers(2, '/a😀/x'));
  assert.ok(d.covers(1, '/', true), 'a doubt below the path, when asked');
  assert.ok(!d.covers(1, '/a', true), '/a😀 is not below /a');
  d.settle(1, '/a😀');
  assert.deepEqual(d.storages(), []);
  for (let i = 0; i < 300; i++) d.add(3, `/f${i}`);
  assert.deepEqual(d.of(3), ['/'], 'bounded: the whole storage is doubted instead');
  assert.ok(d.covers(3, '/anything/else'));
});
