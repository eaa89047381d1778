/**
 * Issue #19: a PROPFIND Depth 1 over a 100,000-entry folder is answered in full (streamed in chunks), changes
 * nothing, and the server keeps answering other requests while it streams.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ADMIN_PASSWORD, forEachDialect, type Harness } from '../support/harness.js';
import { basic, dav, PROPFIND_ALL } from './support.js';

const ENTRIES = 100_000;

forEachDialect('webdav 100,000-entry folder', (h: () => Harness) => {
  test('PROPFIND Depth 1 lists every entry, changes nothing, and the API answers meanwhile', async () => {
    const dir = join(h().dataDir, 'files', 'huge');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < ENTRIES; i++) writeFileSync(join(dir, `f${String(i).padStart(6, '0')}.txt`), '');
    const token = await h().adminToken();
    let done = false;
    const listing = dav(h(), 'PROPFIND', '/dav/huge/', { auth: basic('admin', ADMIN_PASSWORD), headers: { depth: '1', 'content-type': 'application/xml' }, body: PROPFIND_ALL }).finally(() => (done = true));
    // the API is served while the listing is built and streamed
    const me = await h().get('/api/me', { token });
    assert.equal(me.status, 200);
    assert.equal(done, false, 'the API answered only once the PROPFIND was over');
    const r = await listing;
    assert.equal(r.status, 207);
    assert.match(String(r.headers['content-type']), /application\/xml/);
    const responses = r.body.match(/<D:response>/g)?.length ?? 0;
    assert.equal(responses, ENTRIES + 1);
    assert.ok(r.body.includes('<D:href>/dav/huge/f099999.txt</D:href>'));
    assert.ok(r.body.endsWith('</D:multistatus>\n'));
    assert.equal(readdirSync(dir).length, ENTRIES);
  });
});
