/**
 * Header injection through file names: files whose names hold `"`, CR LF, `;`, `%`, quotes and
 * non-ASCII are created through the upload API and downloaded through `/d/`, `/p/` and `/sd/`
 * over a raw socket. Every reply must carry exactly one well-formed
 * `attachment; filename="<ASCII>"; filename*=UTF-8''<percent-encoded>` header that decodes back
 * to the name, and no header line the name tried to inject.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contentDisposition } from '../../src/modules/fs/serve-file.js';
import { ok, putHeaders, rawUpload, signedUrl, startFerry, type Ferry } from '../fs/helpers.js';
import { connect, header, parseResponse, within, type ParsedResponse } from './raw.js';

const NAMES = [
  'evil"quote.txt',
  'crlf\r\nX-Injected: yes.txt',
  'lf\nSet-Cookie: a=b.txt',
  'semi;colon; filename=other.exe',
  'both "double" ; \'single\' kinds.txt',
  'ünïcødé 文件 😀.txt',
  "pct%20 and 'quote' (1)*.txt",
  'tab\there and \u007f del.txt',
];

const SAFE = /^attachment; filename="([\x20-\x7e]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]*)$/;

/** Asserts one safe Content-Disposition naming `name`, and no injected header. */
function assertSafe(r: ParsedResponse, name: string, where: string): void {
  assert.equal(r.status, 200, `${where}: ${r.body.toString().slice(0, 200)}`);
  const cd = header(r, 'content-disposition');
  assert.equal(cd.length, 1, `${where}: ${JSON.stringify(r.headers)}`);
  const m = SAFE.exec(cd[0]!);
  assert.ok(m, `${where}: unsafe header ${JSON.stringify(cd[0])}`);
  assert.doesNotMatch(m[1]!, /["\\]/);
  assert.equal(decodeURIComponent(m[2]!), name, where);
  for (const injected of ['x-injected', 'set-cookie']) assert.deepEqual(header(r, injected), [], `${where}: injected ${injected}`);
}

describe('Content-Disposition with hostile file names (server process, raw socket)', () => {
  let f: Ferry;
  const shares = new Map<string, string>();
  before(async () => {
    f = await startFerry();
    for (const [i, name] of NAMES.entries()) {
      const body = Buffer.from(`file ${i}\n`);
      const r = await rawUpload(f.url, { headers: putHeaders(f.token, `/${name}`, { 'Content-Length': body.length }), body });
      assert.equal(r.status, 200, `upload ${JSON.stringify(name)}: ${r.body}`);
      const share = await ok(f.call('POST', '/api/share/create', { files: [`/${name}`] }));
      shares.set(name, share.id as string);
    }
  });
  after(() => f.stop());

  async function get(path: string): Promise<ParsedResponse> {
    const c = await connect(f.url);
    await c.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    await within(c.closed, 10_000, `GET ${path}`);
    return parseResponse(c.received());
  }

  for (const [i, name] of NAMES.entries()) {
    test(`${JSON.stringify(name)} via /d/, /p/ and /sd/`, async () => {
      // the links Ferry hands out: raw_url (signed, as sign_all is on by default) and the share
      const local = (url: string) => new URL(url).pathname + new URL(url).search;
      for (const [where, path] of [
        ['/d/', local(await signedUrl(f, `/${name}`))],
        ['/p/', local(await signedUrl(f, `/${name}`, 'p'))],
        ['/sd/', `/sd/${shares.get(name)}`],
      ] as const) {
        assert.ok(path.startsWith(where), path);
        const r = await get(path);
        assertSafe(r, name, where);
        assert.equal(r.body.toString(), `file ${i}\n`, where);
      }
    });
  }

  test('names that are not valid UTF-16 (lone surrogates) still give a safe header', () => {
    for (const name of ['a\ud800b.txt', '\udc00', 'x\ud83d']) {
      const cd = contentDisposition(name);
      assert.match(cd, SAFE);
      assert.match(cd, /%EF%BF%BD/);
    }
  });
});
