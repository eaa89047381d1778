/**
 * The write-set journal: a process killed between committing the files of a set (sidecars and their
 * upload, or generated artifacts) leaves an entry; recovery at the next start keeps the set when its
 * anchor (the file committed last) has the new content, and otherwise puts the old files back (or removes
 * new ones).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { after, before, describe, test } from 'node:test';
import { Harness } from '../support/harness.js';
import { driverOf } from '../seeds-generate/helpers.js';
import { openJournal, recoverJournal } from '../../src/modules/fs/write-journal.js';
import { journalDirOf } from '../../src/modules/fs/write-set.js';
import { hostPath } from './helpers.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const log = pino({ level: 'silent' });

describe('upload sidecars: commit journal', () => {
  const h = new Harness('sqlite');
  before(() => h.start());
  after(() => h.stop());

  const storageId = () => h.ctx.storages.list().find((s) => s.record.mountPath === '/')!.record.id;
  const journal = () => journalDirOf(h.ctx.config.dataDir);
  const recover = () => recoverJournal(journal(), (id) => h.ctx.storages.driverOf(id), log);
  const journalFiles = () => (existsSync(join(h.ctx.config.dataDir, 'journal')) ? readdirSync(join(h.ctx.config.dataDir, 'journal')) : []);

  test('killed before the file was committed: old sidecar restored, new one removed', async () => {
    writeFileSync(hostPath(h, '/a.bin'), 'old content');
    writeFileSync(hostPath(h, '/a.bin.oss'), 'old oss');
    await openJournal(journal(), { storageId: storageId(), inner: '/a.bin', size: 11, md5: md5('new content') }, [
      { storageId: storageId(), inner: '/a.bin.oss', previous: Buffer.from('old oss') },
      { storageId: storageId(), inner: '/a.bin.cas', previous: null },
    ]);
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
    await openJournal(journal(), { storageId: storageId(), inner: '/b.bin', size: 11, md5: md5('new content') }, [
      { storageId: storageId(), inner: '/b.bin.oss', previous: Buffer.from('old oss') },
    ]);
    writeFileSync(hostPath(h, '/b.bin.oss'), 'new oss');
    writeFileSync(hostPath(h, '/b.bin'), 'new content');
    assert.equal(await recover(), 1);
    assert.equal(readFileSync(hostPath(h, '/b.bin.oss'), 'utf8'), 'new oss');
    assert.deepEqual(journalFiles(), []);
  });

  test('an entry written before write sets were general (uploads only) is still settled', async () => {
    writeFileSync(hostPath(h, '/l.bin'), 'old content');
    writeFileSync(hostPath(h, '/l.bin.oss'), 'new oss');
    const legacy = { storageId: storageId(), main: '/l.bin', size: 11, md5: md5('new content'), sidecars: [{ storageId: storageId(), inner: '/l.bin.oss', backup: 'legacy.0.bak' }], pid: 999999, host: 'elsewhere' };
    mkdirSync(journal(), { recursive: true });
    writeFileSync(join(journal(), 'legacy.0.bak'), 'old oss');
    writeFileSync(join(journal(), 'legacy.json'), JSON.stringify(legacy));
    assert.equal(await recover(), 1);
    assert.equal(readFileSync(hostPath(h, '/l.bin.oss'), 'utf8'), 'old oss');
    assert.deepEqual(journalFiles(), []);
  });

  test('a set without a separate anchor (generated artifacts): half committed is rolled back, fully committed stays', async () => {
    writeFileSync(hostPath(h, '/g.oss'), 'old oss');
    writeFileSync(hostPath(h, '/g.torrent'), 'old torrent');
    // anchor = the last artifact; the crash came after the first commit only
    await openJournal(journal(), { storageId: storageId(), inner: '/g.torrent', size: 11, md5: md5('new torrent') }, [
      { storageId: storageId(), inner: '/g.oss', previous: Buffer.from('old oss') },
    ]);
    writeFileSync(hostPath(h, '/g.oss'), 'new oss');
    assert.equal(await recover(), 1);
    assert.equal(readFileSync(hostPath(h, '/g.oss'), 'utf8'), 'old oss');
    assert.equal(readFileSync(hostPath(h, '/g.torrent'), 'utf8'), 'old torrent');
    // the same set, killed after its anchor was committed: everything new stays
    await openJournal(journal(), { storageId: storageId(), inner: '/g.torrent', size: 11, md5: md5('new torrent') }, [
      { storageId: storageId(), inner: '/g.oss', previous: Buffer.from('old oss') },
    ]);
    writeFileSync(hostPath(h, '/g.oss'), 'new oss');
    writeFileSync(hostPath(h, '/g.torrent'), 'new torrent');
    assert.equal(await recover(), 1);
    assert.equal(readFileSync(hostPath(h, '/g.oss'), 'utf8'), 'new oss');
    assert.equal(readFileSync(hostPath(h, '/g.torrent'), 'utf8'), 'new torrent');
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
