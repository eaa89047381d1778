/**
 * WebDAV at /dav, method by method, on both databases: requests as a client sends them (real HTTP parsing
 * through the harness), what is stored on disk and what the HTTP API then sees.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, forEachDialect, type Harness } from '../support/harness.js';
import { basic, dav, FS_WRITE_BITS, hrefs, LOCK_EXCLUSIVE, LOCK_SHARED, PROPFIND_ALL, propfindProps, propText, WEBDAV_MANAGE, WEBDAV_READ } from './support.js';

const ADMIN = basic('admin', ADMIN_PASSWORD);

forEachDialect('webdav methods', (h: () => Harness) => {
  const files = () => join(h().dataDir, 'files');
  const req = (method: string, url: string, o: { headers?: Record<string, string>; body?: string | Buffer; auth?: string | null } = {}) =>
    dav(h(), method, url, { auth: ADMIN, ...o });

  test('OPTIONS announces class 1 and 2', async () => {
    const r = await req('OPTIONS', '/dav/');
    assert.equal(r.status, 200);
    assert.equal(r.headers.dav, '1, 2');
    assert.equal(r.headers['ms-author-via'], 'DAV');
    assert.match(String(r.headers.allow), /PROPFIND/);
  });

  test('no credentials: 401 with a Basic challenge; a wrong password: 401', async () => {
    const r = await req('PROPFIND', '/dav/', { auth: null, headers: { depth: '0' } });
    assert.equal(r.status, 401);
    assert.match(String(r.headers['www-authenticate']), /^Basic realm="Ferry"/);
    const w = await req('PROPFIND', '/dav/', { auth: basic('admin', 'wrong'), headers: { depth: '0' } });
    assert.equal(w.status, 401);
  });

  test('Bearer and raw tokens authenticate like the API', async () => {
    const token = await h().adminToken();
    for (const auth of [`Bearer ${token}`, token]) {
      const r = await req('PROPFIND', '/dav/', { auth, headers: { depth: '0' } });
      assert.equal(r.status, 207, r.body);
    }
  });

  test('PUT (Content-Length, X-OC-Mtime) then GET, HEAD and a range; ETag and Last-Modified agree with PROPFIND', async () => {
    const put = await req('PUT', '/dav/hello%20w%C3%B6rld.txt', { body: 'hello webdav', headers: { 'content-type': 'application/json', 'x-oc-mtime': '1600000000' } });
    assert.equal(put.status, 201, put.body);
    assert.equal(put.headers['x-oc-mtime'], 'accepted');
    assert.equal(readFileSync(join(files(), 'hello wörld.txt'), 'utf8'), 'hello webdav');
    assert.equal(statSync(join(files(), 'hello wörld.txt')).mtimeMs, 1600000000_000);
    const get = await req('GET', '/dav/hello%20w%C3%B6rld.txt');
    assert.equal(get.status, 200);
    assert.equal(get.body, 'hello webdav');
    assert.equal(get.headers['last-modified'], new Date(1600000000_000).toUTCString());
    const head = await req('HEAD', '/dav/hello%20w%C3%B6rld.txt');
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], '12');
    const range = await req('GET', '/dav/hello%20w%C3%B6rld.txt', { headers: { range: 'bytes=6-' } });
    assert.equal(range.status, 206);
    assert.equal(range.body, 'webdav');
    const cond = await req('GET', '/dav/hello%20w%C3%B6rld.txt', { headers: { 'if-none-match': String(get.headers.etag) } });
    assert.equal(cond.status, 304);
    const pf = await req('PROPFIND', '/dav/hello%20w%C3%B6rld.txt', { headers: { depth: '0' }, body: PROPFIND_ALL });
    assert.equal(pf.status, 207);
    assert.equal(propText(pf.body, 'getetag')?.replace(/&quot;/g, '"'), get.headers.etag);
    assert.equal(propText(pf.body, 'getcontentlength'), '12');
    assert.equal(propText(pf.body, 'getlastmodified'), new Date(1600000000_000).toUTCString());
    const again = await req('PUT', '/dav/hello%20w%C3%B6rld.txt', { body: 'replaced' });
    assert.equal(again.status, 204);
  });

  test('PUT conditions: If-None-Match * on an existing file and a stale If-Match answer 412, nothing changes', async () => {
    await req('PUT', '/dav/cond.txt', { body: 'one' });
    const inm = await req('PUT', '/dav/cond.txt', { body: 'two', headers: { 'if-none-match': '*' } });
    assert.equal(inm.status, 412);
    const im = await req('PUT', '/dav/cond.txt', { body: 'two', headers: { 'if-match': '"nope"' } });
    assert.equal(im.status, 412);
    assert.equal(readFileSync(join(files(), 'cond.txt'), 'utf8'), 'one');
    const etag = String((await req('HEAD', '/dav/cond.txt')).headers.etag);
    const ok = await req('PUT', '/dav/cond.txt', { body: 'two', headers: { 'if-match': etag } });
    assert.equal(ok.status, 204);
    assert.equal(readFileSync(join(files(), 'cond.txt'), 'utf8'), 'two');
  });

  test('PUT with OC-Checksum: a match is stored and shown as oc:checksums, a mismatch stores nothing', async () => {
    const body = 'checksummed content';
    const sha1 = createHash('sha1').update(body).digest('hex');
    const sha256 = createHash('sha256').update(body).digest('hex');
    const good = await req('PUT', '/dav/sum.txt', { body, headers: { 'oc-checksum': `SHA1:${sha1}` } });
    assert.equal(good.status, 201);
    const pf = await req('PROPFIND', '/dav/', { headers: { depth: '1' }, body: propfindProps('<oc:checksums/>') });
    assert.equal(pf.status, 207);
    const entry = pf.body.split('<D:response>').find((r) => r.includes('/dav/sum.txt'))!;
    // the declared SHA-1 was checked and is kept, with what the storage records on write (SHA-256 by default)
    assert.match(entry, new RegExp(`SHA1:${sha1}`));
    assert.match(entry, new RegExp(`SHA256:${sha256}`));
    const bad = await req('PUT', '/dav/bad-sum.txt', { body, headers: { 'oc-checksum': `SHA1:${'0'.repeat(40)}` } });
    assert.equal(bad.status, 400);
    assert.equal(existsSync(join(files(), 'bad-sum.txt')), false);
  });

  test('PUT with OC-Checksum MD5: MD5 is computed, checked and recorded, with SHA-1 (an ownCloud-dialect client compares either); a wrong MD5 stores nothing and keeps the old file', async () => {
    const body = 'md5 declared';
    const md5 = createHash('md5').update(body).digest('hex');
    const good = await req('PUT', '/dav/md5-sum.txt', { body, headers: { 'oc-checksum': `MD5:${md5}` } });
    assert.equal(good.status, 201);
    const pf = await req('PROPFIND', '/dav/md5-sum.txt', { headers: { depth: '0' }, body: propfindProps('<oc:checksums/>') });
    assert.equal(propText(pf.body, 'checksum'), `SHA1:${createHash('sha1').update(body).digest('hex')} MD5:${md5} SHA256:${createHash('sha256').update(body).digest('hex')}`);
    const bad = await req('PUT', '/dav/md5-sum.txt', { body: 'replaced', headers: { 'oc-checksum': `MD5:${createHash('md5').update('other').digest('hex')}` } });
    assert.equal(bad.status, 400);
    assert.equal(readFileSync(join(files(), 'md5-sum.txt'), 'utf8'), body);
    assert.equal((await req('PUT', '/dav/md5-new.txt', { body, headers: { 'oc-checksum': `MD5:${'f'.repeat(32)}` } })).status, 400);
    assert.equal(existsSync(join(files(), 'md5-new.txt')), false);
  });

  test('PUT without OC-Checksum records what the storage records on write (SHA-256 by default); oc:checksums shows what the index knows', async () => {
    const body = 'no checksum sent';
    const good = await req('PUT', '/dav/plain-sum.txt', { body });
    assert.equal(good.status, 201);
    const sums = async () => {
      const pf = await req('PROPFIND', '/dav/', { headers: { depth: '1' }, body: propfindProps('<oc:checksums/>') });
      return propText(pf.body.split('<D:response>').find((r) => r.includes('/dav/plain-sum.txt'))!, 'checksum');
    };
    const sha256 = `SHA256:${createHash('sha256').update(body).digest('hex')}`;
    assert.equal(await sums(), sha256);
    // a whole read teaches the index the other digests, which PROPFIND then shows
    assert.equal((await req('GET', '/dav/plain-sum.txt')).body, body);
    const sha1 = `SHA1:${createHash('sha1').update(body).digest('hex')}`;
    const md5 = `MD5:${createHash('md5').update(body).digest('hex')}`;
    assert.equal(await eventually(sums, (v) => v === `${sha1} ${md5} ${sha256}`), `${sha1} ${md5} ${sha256}`);
  });

  test('PUT into a missing folder is 409; PUT onto a folder is 405', async () => {
    assert.equal((await req('PUT', '/dav/no/such/file.txt', { body: 'x' })).status, 409);
    mkdirSync(join(files(), 'afolder'), { recursive: true });
    assert.equal((await req('PUT', '/dav/afolder', { body: 'x' })).status, 405);
  });

  test('MKCOL: 201, again 405, without parent 409, with a body 415', async () => {
    assert.equal((await req('MKCOL', '/dav/made')).status, 201);
    assert.ok(statSync(join(files(), 'made')).isDirectory());
    assert.equal((await req('MKCOL', '/dav/made')).status, 405);
    assert.equal((await req('MKCOL', '/dav/missing/child')).status, 409);
    assert.equal((await req('MKCOL', '/dav/withbody', { body: '<x/>', headers: { 'content-type': 'application/xml' } })).status, 415);
  });

  test('PROPFIND Depth 0 and 1 list the folder with hrefs; Depth infinity (or none) is 403 propfind-finite-depth', async () => {
    writeFileSync(join(files(), 'made', 'a b.txt'), 'ab');
    mkdirSync(join(files(), 'made', 'sub'), { recursive: true });
    const d1 = await req('PROPFIND', '/dav/made/', { headers: { depth: '1' }, body: PROPFIND_ALL });
    assert.equal(d1.status, 207);
    assert.deepEqual(hrefs(d1.body).sort(), ['/dav/made/', '/dav/made/a b.txt', '/dav/made/sub/']);
    const d0 = await req('PROPFIND', '/dav/made', { headers: { depth: '0' } });
    assert.deepEqual(hrefs(d0.body), ['/dav/made/']);
    assert.match(d0.body, /<D:collection\/>/);
    for (const headers of [{ depth: 'infinity' }, {} as Record<string, string>]) {
      const inf = await req('PROPFIND', '/dav/made', { headers });
      assert.equal(inf.status, 403);
      assert.match(inf.body, /propfind-finite-depth/);
    }
    assert.equal((await req('PROPFIND', '/dav/nothing-here', { headers: { depth: '0' } })).status, 404);
  });

  test('malformed XML, a DOCTYPE and billion laughs are 400 and change nothing', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><D:propfind xmlns:D="DAV:"><D:prop><D:x>&lol3;</D:x></D:prop></D:propfind>';
    for (const body of ['<D:propfind xmlns:D="DAV:"><D:prop></D:propfind>', laughs, '<?xml version="1.0"?><!DOCTYPE x SYSTEM "file:///etc/passwd"><x/>', 'not xml at all <']) {
      const r = await req('PROPFIND', '/dav/', { headers: { depth: '0' }, body });
      assert.equal(r.status, 400, body);
    }
    const pp = await req('PROPPATCH', '/dav/cond.txt', { body: `<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e "x">]><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><z:p xmlns:z="urn:z">&e;</z:p></D:prop></D:set></D:propertyupdate>` });
    assert.equal(pp.status, 400);
    const pf = await req('PROPFIND', '/dav/cond.txt', { headers: { depth: '0' }, body: propfindProps('<z:p xmlns:z="urn:z"/>') });
    assert.match(pf.body, /404 Not Found/);
  });

  test('PROPPATCH stores dead properties; they follow MOVE and COPY and go with DELETE', async () => {
    await req('PUT', '/dav/props.txt', { body: 'p' });
    const set = await req('PROPPATCH', '/dav/props.txt', {
      body: '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:z="urn:z"><D:set><D:prop><z:colour>blue &amp; green</z:colour></D:prop></D:set></D:propertyupdate>',
    });
    assert.equal(set.status, 207);
    assert.match(set.body, /200 OK/);
    const want = propfindProps('<z:colour xmlns:z="urn:z"/>');
    const get = async (url: string) => (await req('PROPFIND', url, { headers: { depth: '0' }, body: want })).body;
    assert.match(await get('/dav/props.txt'), /blue &amp; green/);
    assert.equal((await req('MOVE', '/dav/props.txt', { headers: { destination: '/dav/made/props2.txt' } })).status, 201);
    assert.match(await get('/dav/made/props2.txt'), /blue &amp; green/);
    assert.equal((await req('COPY', '/dav/made/props2.txt', { headers: { destination: '/dav/props3.txt' } })).status, 201);
    assert.match(await get('/dav/props3.txt'), /blue &amp; green/);
    assert.equal((await req('DELETE', '/dav/props3.txt')).status, 204);
    await req('PUT', '/dav/props3.txt', { body: 'new' });
    assert.match(await get('/dav/props3.txt'), /404 Not Found/);
    const prot = await req('PROPPATCH', '/dav/props3.txt', {
      body: '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:z="urn:z"><D:set><D:prop><D:getetag>x</D:getetag><z:a>1</z:a></D:prop></D:set></D:propertyupdate>',
    });
    assert.match(prot.body, /403 Forbidden/);
    assert.match(prot.body, /424 Failed Dependency/);
    assert.match(await get('/dav/props3.txt'), /404 Not Found/);
  });

  test('PROPPATCH Win32LastModifiedTime / getlastmodified changes the time listings show (never 405)', async () => {
    await req('PUT', '/dav/times.txt', { body: 't' });
    const when = 'Wed, 01 Jan 2020 10:00:00 GMT';
    for (const [ns, name] of [
      ['urn:schemas-microsoft-com:', 'Win32LastModifiedTime'],
      ['DAV:', 'getlastmodified'],
    ] as const) {
      const r = await req('PROPPATCH', '/dav/times.txt', {
        body: `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x:${name} xmlns:x="${ns}">${when}</x:${name}></D:prop></D:set></D:propertyupdate>`,
      });
      assert.equal(r.status, 207);
      assert.match(r.body, /200 OK/);
    }
    assert.equal(statSync(join(files(), 'times.txt')).mtime.toUTCString(), when);
    const list = await h().post('/api/fs/list', { path: '/' }, { token: await h().adminToken() });
    const item = list.body.data.content.find((c: { name: string }) => c.name === 'times.txt');
    assert.equal(new Date(item.modified).toUTCString(), when);
  });

  test('COPY and MOVE: Overwrite F on an existing target is 412, T replaces it (204); Depth 0 copies a folder without members', async () => {
    await req('PUT', '/dav/src.txt', { body: 'source' });
    await req('PUT', '/dav/dst.txt', { body: 'target' });
    const f = await req('COPY', '/dav/src.txt', { headers: { destination: 'http://localhost:80/dav/dst.txt', overwrite: 'F' } });
    assert.equal(f.status, 412);
    assert.equal(readFileSync(join(files(), 'dst.txt'), 'utf8'), 'target');
    const t = await req('MOVE', '/dav/src.txt', { headers: { destination: '/dav/dst.txt', overwrite: 'T' } });
    assert.equal(t.status, 204);
    assert.equal(readFileSync(join(files(), 'dst.txt'), 'utf8'), 'source');
    assert.equal(existsSync(join(files(), 'src.txt')), false);
    const shallow = await req('COPY', '/dav/made', { headers: { destination: '/dav/made-empty', depth: '0' } });
    assert.equal(shallow.status, 201);
    assert.ok(statSync(join(files(), 'made-empty')).isDirectory());
    assert.equal((await req('PROPFIND', '/dav/made-empty', { headers: { depth: '1' } })).body.match(/<D:response>/g)?.length, 1);
    const onto = await req('MOVE', '/dav/made/a%20b.txt', { headers: { destination: '/dav/made', overwrite: 'T' } });
    assert.equal(onto.status, 403);
    assert.ok(existsSync(join(files(), 'made', 'a b.txt')));
    const deep = await req('COPY', '/dav/made', { headers: { destination: '/dav/made-copy' } });
    assert.equal(deep.status, 201);
    assert.equal(readFileSync(join(files(), 'made-copy', 'a b.txt'), 'utf8'), 'ab');
  });

  test('a Destination on another host is 502, outside /dav or with .. is 403; nothing moves', async () => {
    await req('PUT', '/dav/stay.txt', { body: 's' });
    const other = await req('MOVE', '/dav/stay.txt', { headers: { destination: 'http://evil.example:80/dav/x.txt' } });
    assert.equal(other.status, 502);
    const port = await req('MOVE', '/dav/stay.txt', { headers: { destination: 'http://localhost:8080/dav/x.txt', host: 'localhost' } });
    assert.equal(port.status, 502);
    const outside = await req('MOVE', '/dav/stay.txt', { headers: { destination: '/api/x.txt' } });
    assert.equal(outside.status, 403);
    const dots = await req('MOVE', '/dav/stay.txt', { headers: { destination: '/dav/made/%2e%2e/%2e%2e/x.txt' } });
    assert.equal(dots.status, 403);
    assert.ok(existsSync(join(files(), 'stay.txt')));
  });

  test('a user is confined to base_path: hrefs are relative to it, .. is refused, other paths are unreachable', async () => {
    mkdirSync(join(files(), 'home', 'bob'), { recursive: true });
    writeFileSync(join(files(), 'home', 'bob', 'mine.txt'), 'bob');
    writeFileSync(join(files(), 'secret.txt'), 'secret');
    await h().createUser('bob', 'bob-pass-1', { base_path: '/home/bob', permission: WEBDAV_READ | WEBDAV_MANAGE | FS_WRITE_BITS });
    const bob = basic('bob', 'bob-pass-1');
    const list = await dav(h(), 'PROPFIND', '/dav/', { auth: bob, headers: { depth: '1' } });
    assert.equal(list.status, 207);
    assert.deepEqual(hrefs(list.body).sort(), ['/dav/', '/dav/mine.txt']);
    assert.equal((await dav(h(), 'GET', '/dav/mine.txt', { auth: bob })).body, 'bob');
    assert.equal((await dav(h(), 'GET', '/dav/secret.txt', { auth: bob })).status, 404);
    // (a URL parser would resolve a bare /%2e%2e/ before the request leaves: encoded slashes keep it in)
    assert.equal((await dav(h(), 'GET', '/dav/%2e%2e%2f%2e%2e%2fsecret.txt', { auth: bob })).status, 403);
    assert.equal((await dav(h(), 'GET', '/dav/x/%252e%252e/secret.txt', { auth: bob })).status, 403);
    const mv = await dav(h(), 'COPY', '/dav/mine.txt', { auth: bob, headers: { destination: '/dav/../../stolen.txt' } });
    assert.equal(mv.status, 403);
    assert.equal(existsSync(join(files(), 'stolen.txt')), false);
    const up = await dav(h(), 'PUT', '/dav/new.txt', { auth: bob, body: 'n' });
    assert.equal(up.status, 201);
    assert.ok(existsSync(join(files(), 'home', 'bob', 'new.txt')));
  });

  test('permissions: no bit 8 → 403; bit 8 alone reads but cannot write; bit 9 without the fs bit cannot write', async () => {
    await h().createUser('nodav', 'nodav-pass-1', { permission: FS_WRITE_BITS });
    assert.equal((await dav(h(), 'PROPFIND', '/dav/', { auth: basic('nodav', 'nodav-pass-1'), headers: { depth: '0' } })).status, 403);
    await h().createUser('reader', 'reader-pass-1', { permission: WEBDAV_READ | FS_WRITE_BITS });
    const reader = basic('reader', 'reader-pass-1');
    assert.equal((await dav(h(), 'GET', '/dav/stay.txt', { auth: reader })).status, 200);
    assert.equal((await dav(h(), 'PUT', '/dav/r.txt', { auth: reader, body: 'r' })).status, 403);
    assert.equal((await dav(h(), 'DELETE', '/dav/stay.txt', { auth: reader })).status, 403);
    await h().createUser('nofs', 'nofs-pass-1', { permission: WEBDAV_READ | WEBDAV_MANAGE });
    const nofs = basic('nofs', 'nofs-pass-1');
    assert.equal((await dav(h(), 'PUT', '/dav/r.txt', { auth: nofs, body: 'r' })).status, 403);
    assert.equal((await dav(h(), 'MKCOL', '/dav/rdir', { auth: nofs })).status, 403);
    assert.equal((await dav(h(), 'DELETE', '/dav/stay.txt', { auth: nofs })).status, 403);
    assert.equal(existsSync(join(files(), 'r.txt')), false);
    assert.ok(existsSync(join(files(), 'stay.txt')));
  });

  test('a disabled user is refused at once (403), even with remembered credentials', async () => {
    const id = await h().createUser('carol', 'carol-pass-1', { permission: WEBDAV_READ });
    const carol = basic('carol', 'carol-pass-1');
    assert.equal((await dav(h(), 'PROPFIND', '/dav/', { auth: carol, headers: { depth: '0' } })).status, 207);
    const admin = await h().adminToken();
    const upd = await h().post('/api/admin/user/update', { id, username: 'carol', base_path: '/', role: 0, permission: WEBDAV_READ, disabled: true }, { token: admin });
    assert.equal(upd.status, 200, upd.body.message);
    assert.equal((await dav(h(), 'PROPFIND', '/dav/', { auth: carol, headers: { depth: '0' } })).status, 403);
  });

  test('DELETE removes a file or a folder (204); the root cannot be removed', async () => {
    assert.equal((await req('DELETE', '/dav/made-copy')).status, 204);
    assert.equal(existsSync(join(files(), 'made-copy')), false);
    assert.equal((await req('DELETE', '/dav/made-copy')).status, 404);
    assert.equal((await req('DELETE', '/dav/')).status, 403);
  });

  test('LOCK: a locked file refuses writes without its token (423), accepts them with it; shared locks coexist; UNLOCK frees it', async () => {
    await req('PUT', '/dav/locked.txt', { body: 'l' });
    const l = await req('LOCK', '/dav/locked.txt', { headers: { timeout: 'Second-600' }, body: LOCK_EXCLUSIVE });
    assert.equal(l.status, 200, l.body);
    const token = String(l.headers['lock-token']);
    assert.match(token, /^<urn:uuid:/);
    assert.match(l.body, /Second-600/);
    assert.equal((await req('PUT', '/dav/locked.txt', { body: 'x' })).status, 423);
    assert.equal((await req('DELETE', '/dav/locked.txt')).status, 423);
    assert.equal((await req('MOVE', '/dav/locked.txt', { headers: { destination: '/dav/l2.txt' } })).status, 423);
    assert.equal((await req('LOCK', '/dav/locked.txt', { body: LOCK_SHARED })).status, 423);
    assert.equal((await req('PUT', '/dav/locked.txt', { body: 'x', headers: { if: `(${token})` } })).status, 204);
    assert.equal((await req('PUT', '/dav/locked.txt', { body: 'x', headers: { if: '(<urn:uuid:00000000-0000-0000-0000-000000000000>)' } })).status, 412);
    const pf = await req('PROPFIND', '/dav/locked.txt', { headers: { depth: '0' }, body: propfindProps('<D:lockdiscovery/>') });
    assert.match(pf.body, new RegExp(token.slice(1, -1)));
    const refresh = await req('LOCK', '/dav/locked.txt', { headers: { if: `(${token})`, timeout: 'Second-900' } });
    assert.equal(refresh.status, 200);
    assert.match(refresh.body, /Second-9\d\d/);
    assert.equal((await req('UNLOCK', '/dav/locked.txt', { headers: { 'lock-token': token } })).status, 204);
    assert.equal((await req('PUT', '/dav/locked.txt', { body: 'free' })).status, 204);
    const s1 = await req('LOCK', '/dav/locked.txt', { body: LOCK_SHARED });
    const s2 = await req('LOCK', '/dav/locked.txt', { body: LOCK_SHARED });
    assert.equal(s1.status, 200);
    assert.equal(s2.status, 200);
    assert.equal((await req('LOCK', '/dav/locked.txt', { body: LOCK_EXCLUSIVE })).status, 423);
    for (const s of [s1, s2]) assert.equal((await req('UNLOCK', '/dav/locked.txt', { headers: { 'lock-token': String(s.headers['lock-token']) } })).status, 204);
  });

  test('LOCK on an unmapped URL creates an empty file (201); a depth-infinity folder lock guards its members', async () => {
    const l = await req('LOCK', '/dav/fresh.txt', { body: LOCK_EXCLUSIVE });
    assert.equal(l.status, 201);
    assert.equal(readFileSync(join(files(), 'fresh.txt'), 'utf8'), '');
    await req('UNLOCK', '/dav/fresh.txt', { headers: { 'lock-token': String(l.headers['lock-token']) } });
    await req('MKCOL', '/dav/guarded');
    const fl = await req('LOCK', '/dav/guarded/', { headers: { depth: 'infinity' }, body: LOCK_EXCLUSIVE });
    assert.equal(fl.status, 200);
    assert.equal((await req('PUT', '/dav/guarded/in.txt', { body: 'x' })).status, 423);
    const tok = String(fl.headers['lock-token']);
    assert.equal((await req('PUT', '/dav/guarded/in.txt', { body: 'x', headers: { if: `</dav/guarded/> (${tok})` } })).status, 201);
    assert.equal((await req('UNLOCK', '/dav/guarded/', { headers: { 'lock-token': tok } })).status, 204);
  });
});
