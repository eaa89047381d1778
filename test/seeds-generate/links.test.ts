/**
 * Sources recorded in seeds: `share_files` create shares (remark `Transfer seed source`) and
 * record `<site>/sd/<id>`; `direct_files` record `<site>/d/<path>`, signed for that path with a
 * signature that never expires while sign_all is on (the default); `<site>` is seed_site_url,
 * else FERRY_SITE_URL, else the request's origin; and
 * the request is all or nothing (shares and artifacts removed when a later step fails).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect, type Harness } from '../support/harness.js';
import { bytes, driverOf, filesDir, generate, generated, putIndexed, rejected, setSettings } from './helpers.js';
import { SharesRepo } from '../../src/modules/shares/shares.repo.js';
import { signPath } from '../../src/modules/fs/sign.js';

/** The `?sign=` a recorded direct link of `full` carries while sign_all is on. */
async function recordedSign(h: Harness, full: string): Promise<string> {
  return `?sign=${encodeURIComponent(signPath(await h.ctx.settings.get('token'), full, 0))}`;
}

async function seedShares(h: Harness): Promise<{ id: string; files: string; remark: string }[]> {
  const { rows } = await new SharesRepo(h.ctx.database.db).list(null, 0, null);
  return rows.filter((r) => r.remark === 'Transfer seed source');
}

forEachDialect('seed generation: links', (h) => {
  let token: string;
  before(async () => {
    token = await h().adminToken();
    await putIndexed(h(), '/lk/a b.txt', Buffer.from('content of a'));
    await putIndexed(h(), '/lk/c.txt', Buffer.from('content of c'));
  });

  test('share_files: one share per file, remark "Transfer seed source", source <origin>/sd/<id> that serves the file', async () => {
    const r = await generate(h(), token, { paths: ['/lk'], formats: ['oss'], share_files: ['/lk/a b.txt', '/lk/c.txt'], output_path: '/lk-out1' }, undefined, { host: 'ferry.test:8443' });
    assert.equal(r.status, 200, r.body.message);
    const shares = await seedShares(h());
    assert.equal(shares.length, 2);
    for (const f of r.body.data.seed.files) {
      assert.equal(f.sources.length, 1);
      const s = f.sources[0];
      assert.equal(s.type, 'openlist-share');
      assert.equal(s.url, `http://ferry.test:8443/sd/${s.share_id}`);
      const row = shares.find((x) => x.id === s.share_id)!;
      assert.deepEqual(JSON.parse(row.files), [`/lk/${f.path}`]);
      const dl = await h().get(`/sd/${encodeURIComponent(s.share_id)}`);
      assert.equal(dl.status, 200);
      assert.equal(dl.body.message, `content of ${f.path[0]}`);
    }
  });

  test('direct_files: source <site>/d/<encoded path>?sign=<non-expiring sign>; seed_site_url beats the request origin', async () => {
    await setSettings(h(), token, { seed_site_url: 'https://seeds.example/' });
    try {
      const d = await generated(h(), token, { paths: ['/lk'], formats: ['oss'], direct_files: ['/lk/a b.txt'], output_path: '/lk-out2' });
      const a = d.seed.files.find((f: { path: string }) => f.path === 'a b.txt');
      assert.deepEqual(a.sources, [{ type: 'openlist-direct', url: `https://seeds.example/d/lk/a%20b.txt${await recordedSign(h(), '/lk/a b.txt')}` }]);
      assert.equal(d.seed.files.find((f: { path: string }) => f.path === 'c.txt').sources, undefined);
    } finally {
      await setSettings(h(), token, { seed_site_url: '' });
    }
  });

  test('with sign_all saved off, direct links are recorded unsigned, and they download', async () => {
    await setSettings(h(), token, { sign_all: 'false' });
    try {
      const d = await generated(h(), token, { paths: ['/lk/c.txt'], formats: ['oss'], direct_files: ['/lk/c.txt'], output_path: '/lk-out3' });
      const url = new URL(d.seed.files[0].sources[0].url as string);
      assert.equal(url.pathname, '/d/lk/c.txt');
      assert.equal(url.search, '');
      const dl = await h().get(url.pathname);
      assert.equal(dl.status, 200);
      assert.equal(dl.body.message, 'content of c');
    } finally {
      await setSettings(h(), token, { sign_all: 'true' });
    }
  });

  test('all or nothing: a failing write removes the shares created and the artifacts already staged', async () => {
    const d = driverOf(h());
    const original = d.beginWrite.bind(d);
    let calls = 0;
    d.beginWrite = async (path, opts) => {
      if (++calls === 2) throw new Error('disk full (injected)');
      return original(path, opts);
    };
    const before = (await seedShares(h())).length;
    try {
      const r = await generate(h(), token, { paths: ['/lk'], formats: ['oss', 'cas'], share_files: ['/lk'], output_path: '/lk-out4' });
      assert.equal(r.status, 500);
    } finally {
      d.beginWrite = original;
    }
    assert.equal(calls, 2);
    assert.equal((await seedShares(h())).length, before, 'shares rolled back');
    assert.deepEqual(readdirSync(join(filesDir(h()), 'lk-out4')), []);
  });

  test('all or nothing: a failing commit removes the artifacts already committed', async () => {
    const d = driverOf(h());
    const original = d.beginWrite.bind(d);
    let calls = 0;
    d.beginWrite = async (path, opts) => {
      const pending = await original(path, opts);
      if (++calls === 3) {
        // The third artifact's commit fails (after the first two were committed).
        Object.defineProperty(pending, 'commit', {
          value: async () => {
            await pending.abort(new Error('injected'));
            throw new Error('commit failed (injected)');
          },
        });
      }
      return pending;
    };
    const before = (await seedShares(h())).length;
    try {
      const r = await generate(h(), token, { paths: ['/lk'], formats: ['oss', 'torrent', 'cas'], share_files: ['/lk/c.txt'], output_path: '/lk-out5' });
      assert.equal(r.status, 500);
    } finally {
      d.beginWrite = original;
    }
    assert.equal(calls, 3);
    assert.equal((await seedShares(h())).length, before);
    assert.deepEqual(readdirSync(join(filesDir(h()), 'lk-out5')), [], 'lk.oss and lk.torrent were committed, then removed');
  });

  test('an earlier failure (a path missing) creates no share at all', async () => {
    const before = (await seedShares(h())).length;
    await rejected(h(), token, { paths: ['/lk/c.txt', '/lk/gone.txt'], formats: ['oss'], share_files: ['/lk/c.txt'] }, 404, /paths\[1\]/);
    assert.equal((await seedShares(h())).length, before);
  });
});

forEachDialect('seed generation: links with FERRY_SITE_URL', (h) => {
  test('FERRY_SITE_URL beats the request origin; seed_site_url beats FERRY_SITE_URL', async () => {
    const token = await h().adminToken();
    await putIndexed(h(), '/env/f.txt', bytes(10, 41));
    const viaEnv = await generate(h(), token, { paths: ['/env/f.txt'], formats: ['oss'], direct_files: ['/env/f.txt'], output_path: '/env-1' }, undefined, { host: 'origin.example' });
    const sign = await recordedSign(h(), '/env/f.txt');
    assert.equal(viaEnv.body.data.seed.files[0].sources[0].url, `https://env.example/base/d/env/f.txt${sign}`);
    await setSettings(h(), token, { seed_site_url: 'https://setting.example' });
    const viaSetting = await generated(h(), token, { paths: ['/env/f.txt'], formats: ['oss'], direct_files: ['/env/f.txt'], output_path: '/env-2' });
    assert.equal(viaSetting.seed.files[0].sources[0].url, `https://setting.example/d/env/f.txt${sign}`);
  });
}, { FERRY_SITE_URL: 'https://env.example/base/' });
