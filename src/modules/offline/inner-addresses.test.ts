import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeBencode } from '../seeds/formats/index.js';
import { magnetAddresses, torrentAddresses, type InnerAddress } from './inner-addresses.js';

const HEX = '0123456789abcdef0123456789abcdef01234567';
const brief = (a: InnerAddress[]) => a.map((x) => `${x.what} ${x.shown} ${x.url ? x.url.host : `✗ ${x.problem}`}`);

test('magnet: trackers, web seeds, metainfo sources with a host and x.pe peers; URNs and other parameters are nothing to contact', () => {
  const m = `magnet:?xt=urn:btih:${HEX}&dn=x&tr=udp%3A%2F%2F%5B%3A%3A1%5D%3A6969&tr.2=http://t.example/a&ws=https://w.example:8443/s/&xs=urn:btpk:abc&xs=http://10.0.0.1/t&as=http://a.example/t&kt=x&x.pe=10.0.0.1:6881&x.pe=[fe80::1]:1&x.pe=h.example:99999&x.pe=nocolon`;
  assert.deepEqual(brief(magnetAddresses(m)), [
    'tracker udp://[::1]:6969 [::1]:6969',
    'tracker http://t.example/a t.example',
    'web seed https://w.example:8443/s/ w.example:8443',
    'metainfo source http://10.0.0.1/t 10.0.0.1',
    'metainfo source http://a.example/t a.example',
    'peer 10.0.0.1:6881 10.0.0.1:6881',
    'peer [fe80::1]:1 [fe80::1]:1',
    'peer h.example:99999 ✗ is not host:port',
    'peer nocolon ✗ is not host:port',
  ]);
});

test('URLs with credentials or a backslash before the host are refused (a tool may read the host differently)', () => {
  for (const tr of ['http://u:p@1.2.3.4/a', 'http://1.2.3.4\\@127.0.0.1/a', 'udp://x@127.0.0.1:1']) {
    const [a] = magnetAddresses(`magnet:?xt=urn:btih:${HEX}&tr=${encodeURIComponent(tr)}`);
    assert.equal(a?.url, null, tr);
    assert.match(a?.problem ?? '', /credentials or a backslash/, tr);
  }
});

test('torrent: announce, announce-list (tiers), url-list (string or list), httpseeds and DHT nodes', () => {
  const t = encodeBencode({
    announce: 'http://a.example/announce',
    'announce-list': [['http://a.example/announce', 'udp://10.0.0.2:80'], ['wss://w.example/t']],
    'url-list': 'http://seed.example/files/',
    httpseeds: ['http://hs.example/seed'],
    nodes: [['router.example', 6881], ['::1', 6881], [5, 6]],
    info: { name: 'x', 'piece length': 16384, pieces: Buffer.alloc(20), length: 1 },
  });
  assert.deepEqual(brief(torrentAddresses(t)), [
    'tracker http://a.example/announce a.example',
    'tracker http://a.example/announce a.example',
    'tracker udp://10.0.0.2:80 10.0.0.2:80',
    'tracker wss://w.example/t w.example',
    'web seed http://seed.example/files/ seed.example',
    'web seed http://hs.example/seed hs.example',
    'DHT node router.example:6881 router.example:6881',
    'DHT node [::1]:6881 [::1]:6881',
    'DHT node ? ✗ is not [host, port]',
  ]);
  assert.deepEqual(torrentAddresses(encodeBencode({ announce: 'not a url', info: {} })).map((a) => a.problem), ['is not a URL']);
});
