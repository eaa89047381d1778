/**
 * `npm start` and the servers tests and benchmarks start (test/support/process.ts) run Node with the same memory
 * settings (README "Memory"), and the settings reach the server process.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, SERVE_ENV, SERVE_NODE_FLAGS, startServer } from '../support/process.js';

test('npm start sets the same malloc environment and V8 flags as the test/bench launcher', () => {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
  const words = start.split(/\s+/);
  const node = words.indexOf('node');
  assert.ok(node > 0, `"start" runs node: ${start}`);
  const env = Object.fromEntries(words.slice(0, node).map((w) => w.split('=') as [string, string]));
  assert.deepEqual(env, SERVE_ENV);
  assert.deepEqual(words.slice(node + 1, node + 1 + SERVE_NODE_FLAGS.length), [...SERVE_NODE_FLAGS]);
  assert.deepEqual(words.slice(node + 1 + SERVE_NODE_FLAGS.length), ['dist/src/app/bin.js', 'serve']);
});

test('a started server runs with those settings', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-launch-'));
  const server = await startServer({ FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: 'launch-settings-pw' });
  try {
    const pid = server.child.pid!;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    for (const [k, v] of Object.entries(SERVE_ENV)) assert.ok(environ.includes(`${k}=${v}`), `${k}=${v} in the server's environment`);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    for (const f of SERVE_NODE_FLAGS) assert.ok(argv.includes(f), `${f} in ${argv.join(' ')}`);
  } finally {
    assert.equal(await server.stop(), 0);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
