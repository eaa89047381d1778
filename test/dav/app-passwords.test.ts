/**
 * App passwords on both databases: created (shown once), listed with last use, revoked; accepted for WebDAV
 * Basic and SFTP password logins, refused by the web login; with 2FA on, WebDAV refuses the account password
 * and takes an app password.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachDialect, requireCommand, type Harness } from '../support/harness.js';
import { run } from '../support/commands.js';
import { SFTP_READ, ssh2Connect } from '../sftp/support.js';
import { basic, dav, WEBDAV_READ } from './support.js';

const T = { timeout: 120_000 };

forEachDialect(
  'app passwords',
  (h: () => Harness) => {
    const propfind = (auth: string, remoteAddress?: string) =>
      h().app.inject({ method: 'PROPFIND' as 'GET', url: '/dav/', headers: { authorization: auth, depth: '0' }, remoteAddress: remoteAddress ?? '127.0.0.1' });

    test('create shows the password once; list shows name and last use, never the password', T, async () => {
      await h().createUser('ann', 'ann-pass-1', { permission: WEBDAV_READ | SFTP_READ });
      const token = await h().login('ann', 'ann-pass-1');
      const c = await h().post('/api/me/app_password/create', { name: 'laptop rclone' }, { token });
      assert.equal(c.status, 200, c.body.message);
      const pw = c.body.data.password as string;
      assert.match(pw, /^ferry(-[a-z2-9]{4}){5}$/);
      const l = await h().get('/api/me/app_password/list', { token });
      assert.equal(l.status, 200);
      assert.equal(l.body.data.total, 1);
      assert.equal(l.body.data.content[0].name, 'laptop rclone');
      assert.equal(Date.parse(l.body.data.content[0].last_used_time), 0);
      assert.doesNotMatch(JSON.stringify(l.body), new RegExp(pw));

      // WebDAV Basic takes it and records its use
      const r = await propfind(basic('ann', pw));
      assert.equal(r.statusCode, 207);
      const l2 = await h().get('/api/me/app_password/list', { token });
      assert.ok(Date.parse(l2.body.data.content[0].last_used_time) > 0);

      // never the web login
      const web = await h().post('/api/auth/login', { username: 'ann', password: pw });
      assert.equal(web.status, 401);

      // SFTP password login takes it
      if (h().sftp) {
        const s = await ssh2Connect(h().sftp!.address.port, { username: 'ann', password: pw });
        assert.equal(s.ok, true, s.error?.message);
        s.client.end();
      }

      // revoked: refused at once, even though WebDAV remembered the login
      const id = l.body.data.content[0].id as number;
      const other = await h().createUser('eve', 'eve-pass-1', { permission: WEBDAV_READ });
      assert.ok(other);
      const eveToken = await h().login('eve', 'eve-pass-1');
      assert.equal((await h().post(`/api/me/app_password/delete?id=${id}`, undefined, { token: eveToken })).status, 404);
      assert.equal((await h().post(`/api/me/app_password/delete?id=${id}`, undefined, { token })).status, 200);
      assert.equal((await propfind(basic('ann', pw))).statusCode, 401);
    });

    test('wrong app passwords count toward the lockout (429 after five)', T, async () => {
      await h().createUser('lock', 'lock-pass-1', { permission: WEBDAV_READ });
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) codes.push((await propfind(basic('lock', 'ferry-aaaa-bbbb-cccc-dddd-eeee'), '127.0.0.9')).statusCode);
      assert.deepEqual(codes, [401, 401, 401, 401, 401, 429]);
    });

    test('with 2FA on, WebDAV refuses the account password and takes an app password', T, async () => {
      requireCommand('oathtool', 'oathtool');
      await h().createUser('otp', 'otp-pass-1', { permission: WEBDAV_READ });
      const token = await h().login('otp', 'otp-pass-1');
      assert.equal((await propfind(basic('otp', 'otp-pass-1'), '127.0.0.7')).statusCode, 207);
      const g = await h().post('/api/auth/2fa/generate', undefined, { token });
      const secret = g.body.data.secret as string;
      const v = await h().post('/api/auth/2fa/verify', { code: run('oathtool', ['--totp', '-b', secret]).trim(), secret }, { token });
      assert.equal(v.status, 200, v.body.message);
      const refused = await propfind(basic('otp', 'otp-pass-1'), '127.0.0.7');
      assert.equal(refused.statusCode, 401);
      assert.match(refused.body, /app password/);
      const c = await h().post('/api/me/app_password/create', { name: 'phone' }, { token });
      assert.equal((await propfind(basic('otp', c.body.data.password), '127.0.0.7')).statusCode, 207);
      // the same user can still use WebDAV with a Bearer token
      assert.equal((await dav(h(), 'PROPFIND', '/dav/', { auth: `Bearer ${token}`, headers: { depth: '0' } })).status, 207);
    });
  },
  { FERRY_SFTP_LISTEN: '127.0.0.1:0' },
);
