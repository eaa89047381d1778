/**
 * The seed wizard on an S3 storage the server may not stream (proxy off, a throwaway Ceph RGW):
 * the hash the drive provides (a single-part object's ETag → md5) is pre-ticked and needs no
 * download; asking for more shows the file as blocked, and submitting shows the server's
 * hint and writes nothing; with only the provided hash the seed is made without a read.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { after, before, describe, test } from 'node:test';
import { cephForThisFile, s3Addition, type CephS3 } from '../support/ceph.js';
import { login, openApp, type App } from './browser.js';
import { apiOk, listNames, requireSeedEndpoints, shot } from './seeds-support.js';

const { ceph, s3 } = cephForThisFile();

describe('web UI: seed wizard on a storage that cannot stream', () => {
  let app: App;
  let token: string;
  let c: CephS3;
  const prefix = `web-np-${randomBytes(4).toString('hex')}`;
  const body = randomBytes(150_000);
  const list = (path: string) => listNames(app, token, path);

  before(async () => {
    c = await ceph();
    app = await openApp();
    token = await app.adminToken();
    await requireSeedEndpoints(app, token, ['capabilities', 'generate', 'parse']);
    await apiOk(app, token, '/api/admin/storage/create', { mount_path: '/s3np', driver: 's3', proxy: false, addition: s3Addition(c, prefix) });
    await (await s3()).send(new PutObjectCommand({ Bucket: c.bucket, Key: `${prefix}/foreign.bin`, Body: body }));
    await login(app.page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
  });

  test("blocked files show the server's hint and nothing is written; the provided hash alone works without a read", async () => {
    const page = app.page;
    await page.goto(`/seeds/new?path=${encodeURIComponent('/s3np/foreign.bin')}`);
    const form = page.getByRole('form', { name: 'Seed wizard' });
    await form.waitFor();
    assert.equal(await form.getByLabel('md5 whole file').isChecked(), true, 'md5 (the ETag) is pre-ticked');
    assert.equal(await form.getByLabel('sha1 whole file').isChecked(), false);
    await form.getByText('no download', { exact: true }).waitFor();

    await form.getByLabel('sha1 whole file').check();
    await form.getByText('needs download · storage cannot stream').waitFor();
    await form.locator('.warn-box').getByText(/\/s3np/).waitFor();
    await form.getByRole('button', { name: 'Create seed' }).click();
    const box = form.locator('.error-box');
    await box.waitFor();
    assert.match((await box.textContent()) ?? '', /cannot download .*foreign\.bin/);
    assert.match((await box.locator('.hint-box').textContent()) ?? '', /provides md5 .*Turn on proxy for the storage \/s3np/);
    await shot(page, 'seed-wizard-blocked-desktop');
    assert.deepEqual(await list('/s3np'), ['foreign.bin']);

    await form.getByLabel('sha1 whole file').uncheck();
    await form.getByRole('button', { name: 'Create seed' }).click();
    await page.getByRole('heading', { name: 'Seed created' }).waitFor({ timeout: 30_000 });
    await page.getByText('drive hashes (no read)').waitFor();
    assert.deepEqual(await list('/s3np'), ['foreign.bin', 'foreign.oss']);
    // The server may not read it back (proxy off): check the written object in the bucket itself.
    const obj = await (await s3()).send(new GetObjectCommand({ Bucket: c.bucket, Key: `${prefix}/foreign.oss` }));
    const seed = JSON.parse(await obj.Body!.transformToString());
    assert.equal(seed.files[0].hashes.md5, createHash('md5').update(body).digest('hex'));
    assert.equal(seed.files[0].hashes.sha1, undefined);
  });
});
