/**
 * Wire shapes the official OpenList web UI reads (../shared/reference/openlist-frontend.md §A–§D): each request as
 * the frontend sends it, each field it reads with its type. Both databases.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { assertShape } from './shape.js';

/** The FE's input types (SettingItem.tsx): anything else renders no input. */
const FE_TYPES = ['string', 'select', 'bool', 'text', 'number', 'float'];

forEachDialect('OpenList web UI: public routes', (h) => {
  test('archive_extensions is an empty array, without login', async () => {
    const r = await h().get('/api/public/archive_extensions');
    assert.equal(r.status, 200);
    assert.equal(r.body.code, 200);
    assert.deepEqual(r.body.data, []);
  });

  test('offline_download_tools lists the usable tools without a login (SimpleHttp until a BitTorrent tool is set)', async () => {
    const r = await h().get('/api/public/offline_download_tools');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, ['SimpleHttp']);
  });

  test('public settings carry every key the frontend reads, with usable values', async () => {
    const d = (await h().get('/api/public/settings')).body.data as Record<string, string>;
    for (const k of ['search_index', 'logo', 'favicon', 'iframe_previews', 'external_previews', 'hide_files', 'pagination_type', 'default_page_size', 'readme_autorender', 'package_download', 'main_color', 'home_icon', 'home_container', 'announcement', 'audio_cover', 'audio_autoplay', 'video_autoplay', 'preview_archives_by_default', 'settings_layout', 'site_title', 'version', 'sign_all']) {
      assert.equal(typeof d[k], 'string', k);
    }
    assert.equal(d.search_index, 'database', 'search is on: the OpenList UI shows its search box');
    assert.deepEqual(JSON.parse(d.iframe_previews!), {});
    assert.deepEqual(JSON.parse(d.external_previews!), {});
    assert.ok(Number(d.default_page_size) > 0);
    assert.ok(['all', 'pagination', 'load_more', 'auto_load_more'].includes(d.pagination_type!));
    assert.ok(!('token' in d) && !('api_errors_http_200' in d));
    const logo = await h().app.inject({ method: 'GET', url: d.logo! });
    assert.equal(logo.statusCode, 200);
    assert.match(String(logo.headers['content-type']), /image\/svg\+xml/);
    assert.match(logo.body, /^<svg/);
  });
});

forEachDialect('OpenList web UI: settings admin', (h) => {
  test('setting/list: OpenList items, filtered by group and groups; non-numeric group is 400', async () => {
    const token = await h().adminToken();
    const all = (await h().get('/api/admin/setting/list', { token })).body.data as Record<string, unknown>[];
    assert.ok(all.length > 20);
    for (const s of all) {
      assertShape(s, { key: 'string', value: 'string', help: 'string', type: 'string', options: 'string', group: 'integer', flag: 'integer', index: 'integer' }, String(s.key));
      assert.ok(FE_TYPES.includes(s.type as string), `${s.key}: type ${s.type}`);
      assert.ok(s.flag === 0 || s.flag === 1);
      if (s.type === 'select') assert.ok((s.options as string).split(',').includes(s.value as string), `${s.key}: value among options`);
    }
    const fmt = all.find((s) => s.key === 'seed_default_format')!;
    assert.equal(fmt.options, 'oss,torrent,cas');
    assert.equal(all.find((s) => s.key === 'seed_default_matrix')!.type, 'text');

    const site = (await h().get('/api/admin/setting/list?group=1', { token })).body.data as { key: string; group: number }[];
    assert.ok(site.some((s) => s.key === 'site_title'));
    assert.ok(site.some((s) => s.key === 'api_errors_http_200'));
    assert.ok(site.every((s) => s.group === 1));
    assert.ok(!site.some((s) => s.key === 'token' || s.key.startsWith('seed_') || s.key === 'sign_all'));

    const other = (await h().get('/api/admin/setting/list?groups=5,0', { token })).body.data as { key: string; group: number }[];
    // group 0 (single settings) holds the admin token; group 5 the offline download tools
    assert.equal(other[0]!.key, 'token');
    assert.equal(other[0]!.group, 0);
    assert.ok(other.length > 1 && other.slice(1).every((s) => s.group === 5), 'the rest are offline download settings');
    assert.ok(other.some((s) => s.key === 'aria2_uri'));
    const global = (await h().get('/api/admin/setting/list?group=4', { token })).body.data as { key: string }[];
    for (const k of ['sign_all', 'link_expiration', 'token_expires_in']) assert.ok(global.some((s) => s.key === k), k);
    assert.deepEqual((await h().get('/api/admin/setting/list?group=11', { token })).body.data, []);

    const bad = await h().get('/api/admin/setting/list?group=site', { token });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /group/);
  });

  test('setting/save takes key and value of each item and ignores the rest; the listed items round-trip', async () => {
    const token = await h().adminToken();
    // exactly what the reference probe sent (a 500 before)
    const r = await h().post('/api/admin/setting/save', [{ key: 'site_title', value: 'Renamed', type: 'string', help: '', options: '', group: 1, flag: 0 }], { token });
    assert.equal(r.status, 200, r.body.message);
    assert.equal(r.body.data, null);
    assert.equal((await h().get('/api/public/settings')).body.data.site_title, 'Renamed');

    // Ferry's own whole list posted back, as the frontend does per page
    const all = (await h().get('/api/admin/setting/list', { token })).body.data as { key: string; value: string }[];
    const back = await h().post('/api/admin/setting/save', all, { token });
    assert.equal(back.status, 200, back.body.message);
    const again = (await h().get('/api/admin/setting/list', { token })).body.data as { key: string; value: string }[];
    assert.deepEqual(again.map((s) => [s.key, s.value]), all.map((s) => [s.key, s.value]));

    // one group page edited and saved
    const site = (await h().get('/api/admin/setting/list?group=1', { token })).body.data as { key: string; value: string }[];
    const edited = site.map((s) => (s.key === 'default_page_size' ? { ...s, value: '50' } : s));
    assert.equal((await h().post('/api/admin/setting/save', edited, { token })).status, 200);
    assert.equal((await h().get('/api/public/settings')).body.data.default_page_size, '50');

    // a number value is taken as its text; a bad value is a 400 naming it, never a 500
    assert.equal((await h().post('/api/admin/setting/save', [{ key: 'default_page_size', value: 40, index: 3 }], { token })).status, 200);
    assert.equal((await h().get('/api/admin/setting/get?key=default_page_size', { token })).body.data.value, '40');
    const bad = await h().post('/api/admin/setting/save', [{ key: 'sign_all', value: 'maybe', group: 4, flag: 0 }], { token });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /sign_all/);
    const noValue = await h().post('/api/admin/setting/save', [{ key: 'site_title', type: 'string' }], { token });
    assert.equal(noValue.status, 400);
  });

  test('setting/delete forgets a saved value; unknown key 404; the token stays', async () => {
    const token = await h().adminToken();
    await h().post('/api/admin/setting/save', [{ key: 'main_color', value: '#ff0000' }], { token });
    assert.equal((await h().get('/api/public/settings')).body.data.main_color, '#ff0000');
    const del = await h().post('/api/admin/setting/delete?key=main_color', undefined, { token });
    assert.equal(del.status, 200, del.body.message);
    assert.equal((await h().get('/api/public/settings')).body.data.main_color, '#1890ff');
    assert.equal((await h().post('/api/admin/setting/delete?key=nope', undefined, { token })).status, 404);
    assert.equal((await h().post('/api/admin/setting/delete?key=token', undefined, { token })).status, 400);
    assert.equal((await h().post('/api/admin/setting/delete?key=main_color', undefined, { token: 'x' })).status, 401);
  });
});

forEachDialect('OpenList web UI: storages and users admin', (h) => {
  const ITEM = { name: 'string', type: 'string', default: 'string', options: 'string', required: 'boolean', help: 'string' } as const;

  const checkInfo = (info: unknown, where: string) => {
    assertShape(info, { common: 'array', additional: 'array', config: 'object' }, where);
    const i = info as { common: unknown[]; additional: unknown[]; config: Record<string, unknown> };
    for (const c of [...i.common, ...i.additional]) assertShape(c, ITEM, where);
    assertShape(i.config, { name: 'string', local_sort: 'boolean', only_local: 'boolean', only_proxy: 'boolean', no_cache: 'boolean', no_upload: 'boolean', need_ms: 'boolean', default_root: 'string', alert: 'string' }, `${where}.config`);
    const names = (i.common as { name: string }[]).map((c) => c.name);
    for (const n of ['mount_path', 'order', 'remark', 'proxy', 'seed_policy']) assert.ok(names.includes(n), `${where}: common ${n}`);
  };

  test('driver/list, driver/info and driver/names', async () => {
    const token = await h().adminToken();
    const list = (await h().get('/api/admin/driver/list', { token })).body.data as Record<string, unknown>;
    assert.deepEqual(Object.keys(list).sort(), ['local', 's3']);
    for (const [k, v] of Object.entries(list)) checkInfo(v, k);
    const info = await h().get('/api/admin/driver/info?driver=local', { token });
    assert.equal(info.status, 200);
    checkInfo(info.body.data, 'info');
    assert.deepEqual(info.body.data, list.local);
    const none = await h().get('/api/admin/driver/info?driver=nope', { token });
    assert.equal(none.status, 404);
    assert.match(none.body.message, /driver \[nope\] not found/);
    assert.deepEqual((await h().get('/api/admin/driver/names', { token })).body.data, ['local', 's3']);
  });

  test('a storage made from the form defaults (common + additional) is created; load_all reloads; del_cache answers', async () => {
    const token = await h().adminToken();
    const info = (await h().get('/api/admin/driver/info?driver=local', { token })).body.data as { common: { name: string; type: string; default: string }[] };
    // what the frontend builds: each common item's default converted by type, then the user's entries
    const storage: Record<string, unknown> = { driver: 'local' };
    for (const c of info.common) storage[c.name] = c.type === 'number' ? Number(c.default) : c.type === 'bool' ? c.default === 'true' : c.default;
    storage.mount_path = '/ol-form';
    storage.addition = JSON.stringify({ root_folder_path: h().dataDir });
    const created = await h().post('/api/admin/storage/create', storage, { token });
    assert.equal(created.status, 200, created.body.message);
    const reload = await h().post('/api/admin/storage/load_all', undefined, { token });
    assert.equal(reload.status, 200, reload.body.message);
    const listed = (await h().get('/api/admin/storage/list', { token })).body.data.content as { mount_path: string; status: string }[];
    assert.equal(listed.find((s) => s.mount_path === '/ol-form')?.status, 'work');
    assert.equal((await h().post('/api/admin/user/del_cache?username=admin', undefined, { token })).status, 200);
  });

  test("the tasks pages of OpenList's archive types (decompress, decompress_upload) list nothing; other verbs and unknown types stay 404", async () => {
    const token = await h().adminToken();
    for (const type of ['decompress', 'decompress_upload']) {
      for (const which of ['undone', 'done']) {
        const r = await h().get(`/api/task/${type}/${which}`, { token });
        assert.equal(r.status, 200, `${type}/${which}: ${r.body.message}`);
        assert.deepEqual(r.body.data, []);
      }
      assert.equal((await h().post(`/api/task/${type}/retry?tid=x`, undefined, { token })).status, 404);
    }
    assert.equal((await h().get('/api/task/nonsense/undone', { token })).status, 404);
  });
});
