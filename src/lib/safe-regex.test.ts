import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileSafeRegex } from './safe-regex.js';

test('Go replacement semantics: groups by number and name, $$, empty matches after a match', () => {
  assert.equal(compileSafeRegex('(\\d+)', 'r').replaceAll('file12.txt', 'n$1'), 'filen12.txt');
  assert.equal(compileSafeRegex('(?P<num>\\d+)\\.txt', 'r').replaceAll('a7.txt', '${num}-x.md'), 'a7-x.md');
  assert.equal(compileSafeRegex('(a)', 'r').replaceAll('a', '$$$1${9}'), '$a');
  assert.equal(compileSafeRegex('\\d*', 'r').replaceAll('a12b', '-'), '-a-b-');
  assert.equal(compileSafeRegex('x*', 'r').replaceAll('abc', '-'), '-a-b-c-');
});

test('patterns that backtrack catastrophically elsewhere run in linear time; bad patterns are 400s', () => {
  const evil = compileSafeRegex('^(a+)+$', 'r');
  assert.equal(evil.test('a'.repeat(100_000) + '!'), false);
  assert.equal(compileSafeRegex('(a|a)*b', 'r').test('a'.repeat(100_000)), false);
  assert.throws(() => compileSafeRegex('(?=a)', 'src_name_regex'), (e: { code: number; message: string }) => e.code === 400 && /src_name_regex/.test(e.message));
  assert.throws(() => compileSafeRegex('(a)\\1', 'r'), (e: { code: number }) => e.code === 400);
  assert.throws(() => compileSafeRegex('a'.repeat(2000), 'r'), (e: { code: number }) => e.code === 400);
});
