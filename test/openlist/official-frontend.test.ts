/**
 * Issue #18: the official OpenList web frontend against a fresh built Ferry, in Chromium — every journey of each
 * script below (harness: ./frontend-harness.ts). Needs `npm run build` and the frontend build that
 * scripts/setup-peers.mjs unpacks into .peers/ (`npm test` runs both first).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { ROOT } from '../support/process.js';

/** Each journeys script, and how many journeys it runs at least (so an empty run fails). */
const SCRIPTS: [string, string, number][] = [
  ['files: login (password, 2FA), listing, every preview, download, uploads, file operations and offline download through its widgets, every manage page, index build and scan, search', 'test/openlist/frontend-journeys.ts', 40],
  ['manage: storages, users, metas, settings, tasks and profile through their own widgets', 'test/openlist/frontend-manage.ts', 19],
];

for (const [title, script, atLeast] of SCRIPTS) {
  test(`official OpenList frontend — ${title}: every journey passes, with no unexpected API answer`, { timeout: 600_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, out);
    assert.match(out, /problems: 0/);
    assert.doesNotMatch(out, /^FAIL /m);
    assert.ok((out.match(/^ok {3}/gm) ?? []).length >= atLeast, out);
  });
}
