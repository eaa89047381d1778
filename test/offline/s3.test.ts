/**
 * An offline download landing on S3 (a throwaway Ceph RGW): aria2 downloads the album from the local swarm into
 * Ferry's work folder, and the `offline_download_transfer` writes every file into the S3 storage through the normal
 * write path — the objects hold the seeder's bytes, the hash index knows them, and aria2's copy is deleted.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { cephForThisFile, s3Addition } from '../support/ceph.js';
import { forEachDialect } from '../support/harness.js';
import { setSettings } from '../seeds-generate/helpers.js';
import { offlineDownloadDone } from './offline-helpers.js';
import { swarmWithAria2 } from './swarm-aria2.js';

const SECRET = 's3-secret';
const { ceph, s3 } = cephForThisFile();

const { swarm, aria2 } = swarmWithAria2(SECRET);

forEachDialect('offline downloads onto S3', (h) => {
  let token: string;
  let bucket: string;
  const prefix = `od-${randomBytes(4).toString('hex')}`;

  before(async () => {
    const c = await ceph();
    bucket = c.bucket;
    token = await h().adminToken();
    await setSettings(h(), token, { seed_trusted_source_hosts: swarm().trustedHosts });
    const m = await h().post('/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(c, prefix) }, { token });
    assert.equal(m.status, 200, m.body.message);
    const a = await h().post('/api/admin/setting/set_aria2', { uri: aria2().uri, secret: SECRET }, { token });
    assert.equal(a.status, 200, a.body.message);
  });

  test('magnet → every file of the album is an S3 object with the seeder\'s bytes, indexed; aria2\'s copy is deleted', async () => {
    const tid = await offlineDownloadDone(h(), token, { urls: [swarm().magnet(swarm().album.hash, 'album')], path: '/s3/dl', tool: 'aria2' });
    for (const [p, data] of Object.entries(swarm().album.files)) {
      const o = await (await s3()).send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/dl/album/${p}` }));
      assert.ok(Buffer.from(await o.Body!.transformToByteArray()).equals(data), `${p}: the object holds the seeder's bytes`);
      const got = await h().post('/api/fs/get', { path: `/s3/dl/album/${p}` }, { token });
      assert.equal(got.status, 200, got.body.message);
      assert.equal(got.body.data.size, data.length);
    }
    const sha1 = await h().post('/api/fs/get', { path: '/s3/dl/album/a.bin' }, { token });
    assert.match(JSON.stringify(sha1.body.data.hash_info ?? {}), /[0-9a-f]{40}/, 'the transfer recorded its hashes');
    assert.ok(!existsSync(join(h().dataDir, 'offline', tid)), 'aria2\'s copy is deleted');
  });
});
