/**
 * The upload commit journal: a process killed between committing the sidecars and the file
 * leaves an entry; recovery at the next start keeps the sidecars when the file has the new
 * content, and otherwise puts the old sidecars back (or removes new ones).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { after, before, describe, test } from 'node:test';
import { Harness } from '../support/harness.js';
import { driverOf } from '../seeds-generate/helpers.js';
import { openJournal, recoverJournal } from '../../src/modules/seeds/sidecars/journal.js';
import { hostPath } from './helpers.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const log = pino({ level: 'silent' });

describe('upload sidecars: commit journal', () => {
  const h = new Harness('sqlite');
  before(() => h.start());
  after(() => h.stop());

  const storageId = () => h.ctx.storages.list().find((s) => s.record.mountPath === '/')!.record.id;
  const recover = () => recoverJournal(h.ctx.config.dataDir, (id) => h.ctx.storages.list().find((s) => s.record.id === id)?.driver ?? undefined, log);
  const journalFiles = () => (existsSync(join(h.ctx.config.dataDir, 'journal')) ? readdirSync(join(h.ctx.config.dataDir, 'journal')) : []);

  test('killed before the file was committed: old sidecar restored, new one removed', async () => {
    writeFileSync(hostPath(h, '/a.bin'), 'old content');
    writeFileSync(hostPath(h, '/a.bin.oss'), 'old oss');
    await openJournal(h.ctx.config.dataDir, {
      storageId: storageId(),
      main: '/a.bin',
      size: 11,
      md5: md5('new content'),
      sidecars: [
        { storageId: storageId(), inner: '/a.bin.oss', previous: Buffer.from('old oss') },
        { storageId: storageId(), inner: '/a.bin.cas', previous: null },
      ],
    });
    // the "crash": both new sidecars committed, the file not
    writeFileSync(hostPath(h, '/a.bin.oss'), 'new oss');
    writeFileSync(hostPath(h, '/a.bin.cas'), 'new cas');
    assert.equal(await recover(), 1);
    assert.equal(readFileSync(hostPath(h, '/a.bin.oss'), 'utf8'), 'old oss');
    assert.equal(existsSync(hostPath(h, '/a.bin.cas')), false);
    assert.equal(readFileSync(hostPath(h, '/a.bin'), 'utf8'), 'old content');
    assert.deepEqual(journalFiles(), []);
  });

  test('killed after the file was committed: the new sidecars stay', async () => {
    writeFileSync(hostPath(h, '/b.bin.oss'), 'old oss');
    await openJournal(h.ctx.config.dataDir, {
      storageId: storageId(),
      main: '/b.bin',
      size: 11,
      md5: md5('new content'),
      sidecars: [{ storageId: storageId(), inner: '/b.bin.oss', previous: Buffer.from('old oss') }],
    });
    writeFileSync(hostPath(h, '/b.bin.oss'), 'new oss');
    writeFileSync(hostPath(h, '/b.bin'), 'new content');
    assert.equal(await recover(), 1);
    assert.equal(readFileSync(hostPath(h, '/b.bin.oss'), 'utf8'), 'new oss');
    assert.deepEqual(journalFiles(), []);
  });

  test('a finished upload leaves no journal entry; a second recovery finds nothing', async () => {
    const r = await h.call('PUT', '/api/fs/put', { token: await h.adminToken(), body: 'with sidecars', headers: { 'file-path': '/c.bin', 'x-seed-sidecars': 'oss' } });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(journalFiles(), []);
    assert.equal(await recover(), 0);
    assert.ok(driverOf(h));
  });
});
