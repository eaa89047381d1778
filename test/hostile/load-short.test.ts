/**
 * The load test, short (the soak runs 20 × 100 MiB): 2 concurrent 5 MiB uploads with all
 * sidecars plus 3 s of autocannon traffic against the built server. No errors; the stored files
 * and every sidecar's whole hashes match coreutils; the server reports its event-loop p99.
 * One sidecar is then removed and one corrupted to prove the check catches both.
 */
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runLoad } from '../soak/load.js';

test('load (short): concurrent uploads with sidecars + API traffic, verified with coreutils', async () => {
  const lines: string[] = [];
  const r = await runLoad({
    uploads: 2,
    sizeMb: 5,
    durationMs: 3000,
    log: (l) => lines.push(l),
    // file-000 stays intact; file-001 loses its .cas and gets a wrong MD5 in its .oss.
    beforeVerify: async (files) => {
      await rm(join(files, 'load', 'file-001.bin.cas'));
      const oss = join(files, 'load', 'file-001.bin.oss');
      const seed = JSON.parse(await readFile(oss, 'utf8'));
      seed.files[0].hashes.md5 = '0'.repeat(32);
      await writeFile(oss, JSON.stringify(seed));
    },
  });
  const log = lines.join('\n');
  assert.equal(r.errors, 0, log);
  assert.equal(r.filesChecked, 2, log);
  assert.ok(r.apiRequests > 0, log);
  assert.equal(r.operations, 2 + r.apiRequests);
  // Exactly the two planted faults, nothing about file-000.
  assert.equal(r.sidecarsChecked, 5, log);
  assert.equal(r.mismatches, 2, log);
  assert.equal(r.problems.length, 2, log);
  assert.match(r.problems.join('\n'), /file-001\.bin: sidecar \.cas is missing/);
  assert.match(r.problems.join('\n'), /file-001\.bin: sidecar \.oss md5 0{32} ≠ md5sum/);
  assert.equal(typeof r.eventLoopP99Ms, 'number', log);
});
