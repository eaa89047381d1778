/**
 * The seed source fetcher against SSRF (contract §10.5): the address classifier, the pure source
 * rules, and real fetches against loopback listeners that record every request. Loopback
 * addresses, `localhost`, private, link-local and metadata ranges, redirects to any of them,
 * scheme changes (https → http), a 4th redirect, credentials and non-http schemes: nothing is
 * fetched (zero hits). Ranges that cannot be bound here are reached through an injected
 * resolver and refused before any connection.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { requireCommand } from '../support/harness.js';
import { run } from '../support/commands.js';
import { classifyAddress, fetchSource, SourceRefused, type FetchOptions } from '../../src/modules/seeds/operations/fetcher.js';
import { checkSourceUrl, type SourceContext } from '../../src/modules/seeds/operations/source-rules.js';
import { signPath, verifySign } from '../../src/modules/fs/sign.js';
import { listen, type Listener } from './transfer-helpers.js';

const BODY = Buffer.from('the real content of x.bin\n');
const NOW = new Date('2030-01-01T00:00:00Z');
const ctxOf = (o: Partial<SourceContext>): SourceContext => ({ trustedHosts: [], now: NOW, ...o });

async function body(r: { body: NodeJS.ReadableStream }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of r.body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('address classifier', () => {
  const cases: [string, string | null][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['172.32.0.1', null],
    ['172.15.255.255', null],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.10.1', 'link-local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fc00::1', 'private (unique local)'],
    ['fdab:1234::1', 'private (unique local)'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['::127.0.0.1', 'reserved (IPv4-compatible)'],
    ['8.8.8.8', null],
    ['93.184.216.34', null],
    ['2606:4700:4700::1111', null],
    ['2a00:1450:4001:82b::200e', null],
    ['example.com', 'not an IP address'],
    ['1.2.3', 'not an IP address'],
    ['1:2:3:4:5:6:7:8:9', 'not an IP address'],
  ];
  for (const [ip, want] of cases) {
    test(`${ip} → ${want ?? 'public'}`, () => assert.equal(classifyAddress(ip), want));
  }
});

describe('source rules (pure)', () => {
  const site = ctxOf({ siteUrl: 'https://files.example.org', trustedHosts: ['mirror.example.net:8443', 'http://plain.example.com', 'https://sub.example.com/ferry'] });
  const check = (url: string, type = 'openlist-direct', extra: Record<string, string> = {}) => checkSourceUrl({ type, url, ...extra }, site);
  const usable = (url: string, type?: string, extra?: Record<string, string>) => {
    const r = check(url, type, extra);
    assert.ok(r.usable, `${url}: ${r.usable ? '' : r.reason}`);
  };
  const refused = (url: string, re: RegExp, type?: string, extra?: Record<string, string>) => {
    const r = check(url, type, extra);
    assert.equal(r.usable, false, `${url} should be refused`);
    if (!r.usable) assert.match(r.reason, re);
  };

  test('the site, with port normalisation, and trusted hosts', () => {
    usable('https://files.example.org/d/a.bin');
    usable('https://FILES.example.org:443/d/a.bin');
    usable('https://files.example.org/sd/AbCd1234', 'openlist-share');
    usable('https://mirror.example.net:8443/d/a.bin');
    usable('http://mirror.example.net:8443/d/a.bin');
    usable('http://plain.example.com:80/d/a.bin');
    usable('https://sub.example.com/ferry/d/a.bin');
    refused('http://files.example.org/d/a.bin', /neither this site/);
    refused('https://files.example.org:8443/d/a.bin', /neither this site/);
    refused('https://mirror.example.net/d/a.bin', /neither this site/);
    refused('https://plain.example.com/d/a.bin', /neither this site/);
    refused('https://sub.example.com/d/a.bin', /path starting with \/ferry\/d\//);
    refused('https://evil.example.org/d/a.bin', /neither this site/);
  });

  test('scheme, credentials, prefix, type, expiry', () => {
    refused('file:///etc/passwd', /scheme file is not allowed/);
    refused('ftp://files.example.org/d/a.bin', /scheme ftp is not allowed/);
    refused('gopher://files.example.org/d/a.bin', /scheme gopher/);
    refused('https://user:pw@files.example.org/d/a.bin', /credentials/);
    refused('https://user@files.example.org/d/a.bin', /credentials/);
    refused('https://files.example.org/p/a.bin', /path starting with \/d\//);
    refused('https://files.example.org/d/a.bin', /path starting with \/sd\//, 'openlist-share');
    refused('https://files.example.org/d/a.bin', /cannot be fetched/, 'magnet');
    refused('not a url', /not an absolute URL/);
    refused('https://files.example.org/d/a.bin', /expired at/, 'openlist-direct', { expires_at: '2029-12-31T23:59:59Z' });
    refused('https://files.example.org/d/a.bin', /not a valid time/, 'openlist-direct', { expires_at: 'tomorrow-ish' });
    usable('https://files.example.org/d/a.bin', 'openlist-direct', { expires_at: '2030-06-01T00:00:00Z' });
  });

  test('a direct link of this site must pass its signature check (the path it names, decoded); shares and trusted hosts are not checked here', () => {
    const key = 'test-key-0123456789';
    const signed = ctxOf({ ...site, verifySiteDirect: (full, sign) => verifySign(key, full, sign, NOW.getTime()) });
    const at = (url: string, type = 'openlist-direct') => checkSourceUrl({ type, url }, signed);
    const sign = (full: string) => `?sign=${encodeURIComponent(signPath(key, full, 0))}`;
    assert.ok(at(`https://files.example.org/d/dir/a%20b.bin${sign('/dir/a b.bin')}`).usable);
    assert.ok(at(`https://sub.example.com/ferry/d/a.bin`).usable, 'a trusted host checks its own signatures');
    assert.ok(at('https://files.example.org/sd/AbCd1234', 'openlist-share').usable);
    for (const [url, re] of [
      ['https://files.example.org/d/dir/a%20b.bin', /sign_all.*expire missing/],
      [`https://files.example.org/d/dir/other.bin${sign('/dir/a b.bin')}`, /sign invalid/],
      [`https://files.example.org/d/dir${sign('/dir')}/a%20b.bin`, /sign_all/],
      [`https://files.example.org/d/dir/a%20b.bin${sign('/dir')}`, /sign invalid/],
      [`https://files.example.org/d/dir%2F..%2Fx.bin${sign('/x.bin')}`, /not name a valid path/],
      [`https://files.example.org/d/dir/a%20b.bin?sign=${encodeURIComponent(signPath(key, '/dir/a b.bin', 1))}`, /sign expired/],
    ] as const) {
      const r = at(url);
      assert.equal(r.usable, false, url);
      if (!r.usable) assert.match(r.reason, re, url);
    }
  });

  test('no site and no trusted hosts: nothing is usable', () => {
    const r = checkSourceUrl({ type: 'openlist-direct', url: 'https://files.example.org/d/a.bin' }, ctxOf({}));
    assert.equal(r.usable, false);
    if (!r.usable) assert.match(r.reason, /no site URL is known/);
  });
});

describe('fetcher against loopback listeners', () => {
  let victim: Listener; // must never be hit
  let trusted: Listener; // a trusted source host (may be loopback because it is listed exactly)
  let v6: Listener | null = null;
  let tlsDir: string;
  let tls: https.Server;
  let tlsUrl: string;
  let ca: Buffer;
  const tlsHits: string[] = [];
  const evil = (map: Record<string, string>): FetchOptions['resolve'] => async (name) => {
    const a = map[name];
    if (!a) throw new Error(`unexpected lookup of ${name}`);
    return [{ address: a, family: a.includes(':') ? 6 : 4 }];
  };

  before(async () => {
    victim = await listen();
    victim.routes.set('/d/x.bin', { body: BODY });
    trusted = await listen();
    trusted.routes.set('/d/x.bin', { body: BODY });
    trusted.routes.set('/d/to-victim', { status: 302, headers: { location: `${victim.url}/d/x.bin` } });
    trusted.routes.set('/d/to-evil', { status: 307, headers: { location: `http://evil.test:${victim.url.split(':').pop()}/d/x.bin` } });
    trusted.routes.set('/d/to-ftp', { status: 302, headers: { location: 'ftp://127.0.0.1/d/x.bin' } });
    for (let i = 1; i <= 4; i++) trusted.routes.set(`/d/r${i}`, { status: 302, headers: { location: i === 4 ? '/d/x.bin' : `/d/r${i + 1}` } });
    try {
      v6 = await listen('::1');
      v6.routes.set('/d/x.bin', { body: BODY });
    } catch {
      v6 = null;
    }
    requireCommand('openssl', 'openssl');
    tlsDir = mkdtempSync(join(tmpdir(), 'ferry-tls-'));
    run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(tlsDir, 'key.pem'), '-out', join(tlsDir, 'cert.pem')]);
    ca = readFileSync(join(tlsDir, 'cert.pem'));
    tls = https.createServer({ key: readFileSync(join(tlsDir, 'key.pem')), cert: ca }, (req, res) => {
      tlsHits.push(req.url ?? '');
      if (req.url === '/d/down') res.writeHead(302, { location: `${trusted.url}/d/x.bin` }).end();
      else res.writeHead(200).end(BODY);
    });
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', () => r()));
    tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
  });
  after(async () => {
    await victim.close();
    await trusted.close();
    await v6?.close();
    tls.closeAllConnections();
    await new Promise<void>((r) => tls.close(() => r()));
    rmSync(tlsDir, { recursive: true, force: true });
  });

  const hostOf = (url: string) => new URL(url).host;
  const base = (): SourceContext => ctxOf({ trustedHosts: [hostOf(trusted.url), hostOf(tlsUrl)] });
  const opts = (sctx: SourceContext, extra: Partial<FetchOptions> = {}): FetchOptions => ({ sctx, size: BODY.length, ca, ...extra });
  const refusedFetch = async (url: string, sctx: SourceContext, re: RegExp, extra: Partial<FetchOptions> = {}) => {
    await assert.rejects(fetchSource(new URL(url), opts(sctx, extra)), (e: Error) => {
      assert.ok(e instanceof SourceRefused, `${url}: expected a refusal, got ${e.name}: ${e.message}`);
      assert.match(e.message, re);
      return true;
    });
  };

  test('a trusted loopback host is fetched, without credentials, cookies or compression', async () => {
    const r = await fetchSource(new URL(`${trusted.url}/d/x.bin`), opts(base()));
    assert.deepEqual(await body(r), BODY);
    const hit = trusted.hits.at(-1)!;
    assert.equal(hit.headers.authorization, undefined);
    assert.equal(hit.headers.cookie, undefined);
    assert.equal(hit.headers['accept-encoding'], 'identity');
  });

  test('127.0.0.1, ::1 and localhost as the site (not trusted): refused, zero hits', async () => {
    await refusedFetch(`${victim.url}/d/x.bin`, ctxOf({ siteUrl: victim.url }), /resolves to a loopback address \(127\.0\.0\.1\)/);
    const port = victim.url.split(':').pop();
    await refusedFetch(`http://localhost:${port}/d/x.bin`, ctxOf({ siteUrl: `http://localhost:${port}` }), /localhost:\d+ resolves to a loopback address/);
    if (v6) await refusedFetch(`${v6.url}/d/x.bin`, ctxOf({ siteUrl: v6.url }), /loopback address \(::1\)/);
    assert.ok(v6, 'an IPv6 loopback listener could be started');
    assert.equal(victim.hits.length, 0);
    assert.equal(v6.hits.length, 0);
  });

  test('private, shared, link-local and metadata literals as the site: refused before connecting', async () => {
    for (const [ip, why] of [['10.0.0.1', 'private'], ['172.16.5.4', 'private'], ['192.168.0.1', 'private'], ['169.254.169.254', 'cloud metadata'], ['100.64.1.1', 'shared'], ['[fd00:ec2::254]', 'cloud metadata'], ['[fe80::1]', 'link-local']]) {
      const site = `http://${ip}`;
      await refusedFetch(`${site}/d/x.bin`, ctxOf({ siteUrl: site }), new RegExp(`resolves to a ${why}`));
    }
  });

  test('a name resolving to a private address (injected resolver): refused before connecting; none reaches the listener', async () => {
    const port = victim.url.split(':').pop();
    const cases: [string, string][] = [['10.0.0.1', 'private'], ['172.20.0.3', 'private'], ['192.168.7.7', 'private'], ['169.254.169.254', 'cloud metadata'], ['127.0.0.1', 'loopback'], ['::ffff:127.0.0.1', 'loopback']];
    for (const [address, why] of cases) {
      const site = `http://localhost-evil.test:${port}`;
      await refusedFetch(`${site}/d/x.bin`, ctxOf({ siteUrl: site }), new RegExp(`resolves to a ${why} address`), { resolve: evil({ 'localhost-evil.test': address }) });
    }
    // one bad address among good ones is enough to refuse
    const mixed: FetchOptions['resolve'] = async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }];
    await refusedFetch(`http://mixed.test:${port}/d/x.bin`, ctxOf({ siteUrl: `http://mixed.test:${port}` }), /loopback/, { resolve: mixed });
    assert.equal(victim.hits.length, 0);
  });

  test('a trusted host redirecting to a private address or an untrusted host: refused at that hop, zero hits there', async () => {
    const port = victim.url.split(':').pop();
    // evil.test is the site (host rule passes) but resolves to loopback: the address rule refuses
    const sctx = { ...base(), siteUrl: `http://evil.test:${port}` };
    await refusedFetch(`${trusted.url}/d/to-evil`, sctx, /evil\.test:\d+ resolves to a loopback address/, { resolve: evil({ 'evil.test': '127.0.0.1' }) });
    await refusedFetch(`${trusted.url}/d/to-victim`, base(), /redirect to http:\/\/127\.0\.0\.1:\d+: host .* is neither this site/);
    await refusedFetch(`${trusted.url}/d/to-ftp`, base(), /changes the scheme from http/);
    assert.equal(victim.hits.length, 0);
  });

  test('https → http downgrade on a redirect: refused, the http target is never hit', async () => {
    const before = trusted.hits.length;
    const ok = await fetchSource(new URL(`${tlsUrl}/d/x.bin`), opts(base()));
    assert.deepEqual(await body(ok), BODY, 'the https source itself works');
    await refusedFetch(`${tlsUrl}/d/down`, base(), /changes the scheme from https/);
    assert.ok(tlsHits.includes('/d/down'));
    assert.equal(trusted.hits.length, before);
  });

  test('3 redirects are followed; a 4th is refused and its target never requested', async () => {
    const r = await fetchSource(new URL(`${trusted.url}/d/r2`), opts(base()));
    assert.deepEqual(await body(r), BODY);
    const before = trusted.hits.length;
    await refusedFetch(`${trusted.url}/d/r1`, base(), /more than 3 redirects/);
    assert.deepEqual(trusted.hits.slice(before).map((x) => x.path), ['/d/r1', '/d/r2', '/d/r3', '/d/r4']);
  });

  test('credentials in the URL, file:// and ftp://: refused by the rules and by the fetcher, zero hits', async () => {
    const before = trusted.hits.length;
    const withCreds = `http://user:secret@${hostOf(trusted.url)}/d/x.bin`;
    assert.equal(checkSourceUrl({ type: 'openlist-direct', url: withCreds }, base()).usable, false);
    await refusedFetch(withCreds, base(), /credentials/);
    await refusedFetch('file:///etc/passwd', base(), /scheme file/);
    await refusedFetch(`ftp://${hostOf(trusted.url)}/d/x.bin`, base(), /scheme ftp/);
    assert.equal(trusted.hits.length, before);
  });

  test('a wrong size is an error: announced, or more bytes than the seed', async () => {
    trusted.routes.set('/d/sized', { body: BODY, headers: { 'content-length': String(BODY.length) } });
    await assert.rejects(fetchSource(new URL(`${trusted.url}/d/sized`), opts(base(), { size: BODY.length + 10 })), /announced \d+ bytes, the seed says/);
    const short = await fetchSource(new URL(`${trusted.url}/d/x.bin`), opts(base(), { size: BODY.length + 10 }));
    await assert.rejects(body(short), /sent 26 of the seed's 36 bytes/);
    trusted.routes.set('/d/chunked', { body: Buffer.concat([BODY, BODY]), headers: { 'transfer-encoding': 'chunked' } });
    const r = await fetchSource(new URL(`${trusted.url}/d/chunked`), opts(base()));
    await assert.rejects(body(r), /more than the seed's \d+ bytes/);
  });
});
