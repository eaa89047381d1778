/**
 * Wire gaps found by driving the official OpenList web UI's manage pages (test/openlist/frontend-manage.ts), each as
 * the frontend sends it. Both databases.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { TaskState } from '../../src/modules/tasks/task.model.js';
import { listen } from '../seeds-ops/transfer-helpers.js';
import { forEachDialect } from '../support/harness.js';
import { assertShape } from './shape.js';

forEachDialect('OpenList web UI: manage pages', (h) => {
  test('setting/default (the settings pages\' "Load default settings"): default items of the asked groups, in list\'s shape; nothing saved', async () => {
    const token = await h().adminToken();
    assert.equal((await h().post('/api/admin/setting/save', [{ key: 'site_title', value: 'Changed' }, { key: 'sign_all', value: 'false' }], { token })).status, 200);
    const site = await h().post('/api/admin/setting/default?group=1', undefined, { token });
    assert.equal(site.status, 200, site.body.message);
    const items = site.body.data as Record<string, unknown>[];
    for (const s of items) {
      assertShape(s, { key: 'string', value: 'string', help: 'string', type: 'string', options: 'string', group: 'integer', flag: 'integer', index: 'integer' }, String(s.key));
      assert.equal(s.group, 1, String(s.key));
    }
    assert.equal(items.find((s) => s.key === 'site_title')?.value, 'Ferry');
    // the list's keys of that group, in the same order
    const listed = (await h().get('/api/admin/setting/list?group=1', { token })).body.data as { key: string }[];
    assert.deepEqual(items.map((s) => s.key), listed.map((s) => s.key));
    // nothing saved
    assert.equal((await h().get('/api/public/settings')).body.data.site_title, 'Changed');

    const two = (await h().post('/api/admin/setting/default?groups=4,1', undefined, { token })).body.data as { key: string; value: string; group: number }[];
    assert.equal(two.find((s) => s.key === 'sign_all')?.value, 'true');
    assert.ok(two.some((s) => s.group === 1) && two.every((s) => s.group === 1 || s.group === 4));
    // the admin API token has no default to hand out
    const single = (await h().post('/api/admin/setting/default?group=0', undefined, { token })).body.data as { key: string }[];
    assert.ok(!single.some((s) => s.key === 'token'));

    const bad = await h().post('/api/admin/setting/default?group=site', undefined, { token });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /group/);
    await h().createUser('not-admin-default', 'not-admin-default-pw');
    const user = await h().login('not-admin-default', 'not-admin-default-pw');
    assert.equal((await h().post('/api/admin/setting/default?group=1', undefined, { token: user })).status, 403);
  });

  test('meta/create and meta/update as OpenList 4.2\'s form sends them: empty read_users/write_users pass; a non-empty list is a 400 naming it, nothing stored', async () => {
    const token = await h().adminToken();
    // the body the 4.2.6 form posts (its defaults plus a path and a password)
    const form = { id: 0, path: '/wire-meta', read_users: [] as number[], read_users_sub: false, write_users: [] as number[], write_users_sub: false, password: 'p', p_sub: false, write: false, w_sub: false, hide: '', h_sub: false, readme: '', r_sub: false, header: '', header_sub: false };
    const made = await h().post('/api/admin/meta/create', form, { token });
    assert.equal(made.status, 200, made.body.message);
    const id = made.body.data.id as number;

    const uid = await h().createUser('meta-reader', 'meta-reader-pw');
    for (const field of ['read_users', 'write_users'] as const) {
      const refused = await h().post('/api/admin/meta/create', { ...form, path: '/wire-meta-2', [field]: [uid] }, { token });
      assert.equal(refused.status, 400, field);
      assert.match(refused.body.message, new RegExp(`^${field}: `));
      const upd = await h().post('/api/admin/meta/update', { ...form, id, password: 'changed', [field]: [uid] }, { token });
      assert.equal(upd.status, 400, field);
      assert.match(upd.body.message, new RegExp(`^${field}: `));
    }
    const list = (await h().get('/api/admin/meta/list', { token })).body.data.content as { path: string; password: string }[];
    assert.deepEqual(list.map((m) => [m.path, m.password]), [['/wire-meta', 'p']], 'nothing created or changed by the refused requests');
    const wrongType = await h().post('/api/admin/meta/create', { ...form, path: '/wire-meta-3', read_users: 'everyone' }, { token });
    assert.equal(wrongType.status, 400);
    assert.equal((await h().post('/api/admin/meta/update', { ...form, id, password: 'changed' }, { token })).status, 200);
  });

  test('add_offline_download with OpenList 4.2\'s default delete_policy upload_download_stream: SimpleHttp streams the file in; a BitTorrent tool is a 400 naming the policy', { timeout: 120_000 }, async () => {
    const token = await h().adminToken();
    const source = await listen();
    try {
      source.routes.set('/streamed.txt', { body: 'streamed straight in' });
      assert.equal((await h().post('/api/admin/setting/save', [{ key: 'seed_trusted_source_hosts', value: source.host }], { token })).status, 200);
      await h().post('/api/fs/mkdir', { path: '/od-stream' }, { token });
      // the body the 4.2.6 dialog posts with its defaults
      const r = await h().post('/api/fs/add_offline_download', { urls: [`${source.url}/streamed.txt`], path: '/od-stream', tool: 'SimpleHttp', delete_policy: 'upload_download_stream' }, { token });
      assert.equal(r.status, 200, r.body.message);
      const done = await h().ctx.tasks.settle(r.body.data.tasks[0].id as string, 30_000);
      assert.equal(done.state, TaskState.SUCCEEDED, done.error ?? '');
      assert.equal(readFileSync(join(h().dataDir, 'files/od-stream/streamed.txt'), 'utf8'), 'streamed straight in');

      const hits = source.hits.length;
      const bt = await h().post('/api/fs/add_offline_download', { urls: ['magnet:?xt=urn:btih:0123456789abcdef0123456789abcdef01234567'], path: '/od-stream', tool: 'aria2', delete_policy: 'upload_download_stream' }, { token });
      assert.equal(bt.status, 400);
      assert.match(bt.body.message, /^delete_policy: upload_download_stream is SimpleHttp's/);
      const bad = await h().post('/api/fs/add_offline_download', { urls: [`${source.url}/streamed.txt`], path: '/od-stream', tool: 'SimpleHttp', delete_policy: 'sometimes' }, { token });
      assert.equal(bad.status, 400);
      assert.match(bad.body.message, /^delete_policy: must be one of .*upload_download_stream/);
      assert.equal(source.hits.length, hits, 'nothing fetched for refused requests');
    } finally {
      await source.close();
    }
  });
});
