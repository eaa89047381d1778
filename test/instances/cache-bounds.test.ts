/**
 * Two instances on one PostgreSQL database (in this process): what one saves in the small cached tables (metas,
 * settings) is honoured by the other within the hard bound MAX_STALE_MS, while its own instance sees it at once.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MAX_STALE_MS } from '../../src/lib/shared-cache.js';
import { Harness } from '../support/harness.js';

describe('two instances on one PostgreSQL database: metas and settings saved on one hold on the other within the bound', () => {
  const a = new Harness('postgres');
  const b = new Harness('postgres');
  before(async () => {
    await a.start();
    await b.startBeside(a);
  });
  after(async () => {
    await b.stop();
    await a.stop();
  });

  test('a hide pattern and a setting saved on A: A at once, B within MAX_STALE_MS', async () => {
    mkdirSync(join(a.dataDir, 'files', 'pub'), { recursive: true });
    for (const f of ['secret-1.txt', 'open-1.txt']) writeFileSync(join(a.dataDir, 'files', 'pub', f), f);
    await a.createUser('carol', 'carol-password-1', { permission: 0 });
    const tokens = new Map([
      [a, await a.login('carol', 'carol-password-1')],
      [b, await b.login('carol', 'carol-password-1')],
    ]);
    const names = async (h: Harness) => {
      const r = await h.post('/api/fs/list', { path: '/pub' }, { token: tokens.get(h)! });
      assert.equal(r.status, 200, r.body.message);
      return (r.body.data.content as { name: string }[]).map((c) => c.name).sort();
    };
    const title = async (h: Harness) => {
      const r = await h.get('/api/public/settings');
      assert.equal(r.status, 200, r.body.message);
      return r.body.data.site_title as string;
    };
    // B has read (and cached) both tables before the change
    assert.deepEqual(await names(b), ['open-1.txt', 'secret-1.txt']);
    assert.equal(await title(b), 'Ferry');

    const admin = await a.adminToken();
    const meta = await a.post(
      '/api/admin/meta/create',
      { path: '/pub', password: '', p_sub: false, write: false, w_sub: false, hide: '^secret', h_sub: false, readme: '', r_sub: false, header: '', header_sub: false },
      { token: admin },
    );
    assert.equal(meta.status, 200, meta.body.message);
    const saved = await a.post('/api/admin/setting/save', [{ key: 'site_title', value: 'Ferry two' }], { token: admin });
    assert.equal(saved.status, 200, saved.body.message);
    const at = Date.now();
    assert.deepEqual(await names(a), ['open-1.txt'], 'A honours its own meta at once');
    assert.equal(await title(a), 'Ferry two', 'A sees its own setting at once');

    // B: every request that began MAX_STALE_MS or more after both saves must see them (a read begun after them)
    let seen = false;
    for (let i = 0; i < 400 && !seen; i++) {
      const began = Date.now();
      const [n, t] = await Promise.all([names(b), title(b)]);
      seen = n.length === 1 && n[0] === 'open-1.txt' && t === 'Ferry two';
      if (!seen) {
        assert.ok(began - at < MAX_STALE_MS, `B still served the old meta or setting to a request begun ${began - at} ms after the save`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    assert.ok(seen, 'B honoured the meta and the setting');

    // an idle B (no request since its last read) serves nothing older than the bound: its first request waits
    const metaId = (await a.get('/api/admin/meta/list', { token: admin })).body.data.content[0].id as number;
    const changed = await a.post(
      '/api/admin/meta/update',
      { id: metaId, path: '/pub', password: '', p_sub: false, write: false, w_sub: false, hide: '^(secret|open)', h_sub: false, readme: '', r_sub: false, header: '', header_sub: false },
      { token: admin },
    );
    assert.equal(changed.status, 200, changed.body.message);
    assert.equal((await a.post('/api/admin/setting/save', [{ key: 'site_title', value: 'Ferry three' }], { token: admin })).status, 200);
    await new Promise((r) => setTimeout(r, MAX_STALE_MS + 50));
    const [n, t] = await Promise.all([names(b), title(b)]);
    assert.deepEqual(n, [], 'B honours the changed meta on its first request after the bound');
    assert.equal(t, 'Ferry three', 'B shows the changed setting on its first request after the bound');
  });
});
