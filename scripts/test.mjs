#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner through tsx.
// Node 20's --test does not expand globs, so we collect the files here.
// Usage: node scripts/test.mjs [substring filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
}
for (const d of ['src', 'test']) walk(join(root, d));
files.sort();
const selected = filters.length ? files.filter((f) => filters.some((s) => f.includes(s))) : files;
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = process.env.FERRY_TEST_CONCURRENCY ?? '2';
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...selected],
  { stdio: 'inherit', cwd: root },
);
process.exit(r.status ?? 1);
