/**
 * A seed generation that replaces older sidecars, killed (kill -9) while its write set commits: after the
 * restart the sidecars are either all the older ones or all the new ones, never a mix, and the journal is
 * gone. The kill lands inside the commit window: the test freezes the server (SIGSTOP) the moment the write
 * set's journal entry appears (inotify), then kills it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api } from '../support/process.js';
import { cleanupLog, filesBelow, killHard, login, logLines, okData, restart, startNode, type Node } from './support.js';

const PASSWORD = 'crash-gen-pass-1';
// both record the comment, so the new generation's files always differ from the old ones
const FORMATS = ['oss', 'torrent'] as const;
const ATTEMPTS = 6;

describe('kill -9 while a generation replaces sidecars', { timeout: 300_000 }, () => {
  let dataDir: string;
  let node: Node;
  let token: string;
  const files = () => join(dataDir, 'files');
  const journal = () => join(dataDir, 'journal');
  const out = (f: string) => join(files(), 'gen-out', `data.${f}`);
  const generate = (comment: string) =>
    api(node.url, 'POST', '/api/fs/seed/generate', { token, body: { paths: ['/gen/data.bin'], formats: [...FORMATS], output_path: '/gen-out', comment } });
  const contentsNow = () => FORMATS.map((f) => readFileSync(out(f)));

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ferry-crash-gen-'));
    mkdirSync(join(dataDir, 'files', 'gen'), { recursive: true });
    writeFileSync(join(dataDir, 'files', 'gen', 'data.bin'), randomBytes(3 * 1024 * 1024));
    // staged writes the kill leaves (hidden temp files) are old enough for the start-up cleanup after 0.5 s
    node = await startNode('gen', { FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: PASSWORD, FERRY_STALE_TEMP_MS: '500' });
    token = await login(node.url, 'admin', PASSWORD);
    mkdirSync(journal(), { recursive: true });
  });
  after(async () => {
    await killHard(node).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('after the restart the sidecars are all old or all new; the interrupted set was settled', async () => {
    let settledOnce = false;
    for (let i = 0; i < ATTEMPTS && !settledOnce; i++) {
      await okData(generate(`old ${i}`));
      const old = contentsNow();
      // freeze the server the moment a journal entry (`<id>.json`) appears: it is then committing
      let frozen = false;
      const watcher = watch(journal(), (_event, name) => {
        if (!frozen && name && String(name).endsWith('.json')) {
          frozen = true;
          process.kill(node.pid, 'SIGSTOP');
        }
      });
      const reply = generate(`new ${i}`).catch(() => null);
      const deadline = Date.now() + 30_000;
      while (!frozen && Date.now() < deadline) {
        const done = await Promise.race([reply.then(() => true), new Promise((r) => setTimeout(() => r(false), 20))]);
        if (done) break;
      }
      watcher.close();
      await killHard(node); // SIGKILL works on a stopped process
      await reply;
      await new Promise((r) => setTimeout(r, 700));
      node = await restart(node);
      await cleanupLog(node);
      token = await login(node.url, 'admin', PASSWORD);
      const settled = logLines(node, 'startup: settled write sets interrupted between commits');
      const now = contentsNow();
      const allOld = now.every((b, k) => b.equals(old[k]!));
      const allNew = now.every((b, k) => !b.equals(old[k]!));
      assert.ok(allOld || allNew, `attempt ${i}: the sidecars are a mix of the old and the new generation`);
      assert.deepEqual(readdirSync(journal()), [], `attempt ${i}: the journal is empty after the restart`);
      assert.deepEqual((await filesBelow(files())).temps, [], `attempt ${i}: the start-up cleanup removed the staged writes`);
      if (frozen) assert.equal(settled.length, 1, `attempt ${i}: the interrupted set was settled at start-up\n${node.server.stdout()}`);
      settledOnce ||= settled.length === 1;
    }
    assert.ok(settledOnce, `no kill landed inside the commit window in ${ATTEMPTS} attempts`);
    assert.ok(FORMATS.every((f) => existsSync(out(f))));
  });
});
