import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { decodeBencode, encodeBencode } from '../seeds/formats/index.js';
import { addressKey, magnetAddresses, magnetWithout, torrentAddresses, torrentWithout, type InnerAddress } from './inner-addresses.js';

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

test('magnetWithout: the parameters naming a dropped address go, every other one stays as written', () => {
  const m = `magnet:?xt=urn:btih:${HEX}&dn=a%20b&tr=http%3A%2F%2Fgone.invalid%2Fa&tr.2=http://t.example/a&ws=http://gone.invalid/s/&x.pe=gone.invalid:1&x.pe=10.0.0.1:6881&kt=x`;
  const drop = new Set(['tracker http://gone.invalid/a', 'web seed http://gone.invalid/s/', 'peer gone.invalid:1']);
  assert.equal(magnetWithout(m, drop), `magnet:?xt=urn:btih:${HEX}&dn=a%20b&tr.2=http://t.example/a&x.pe=10.0.0.1:6881&kt=x`);
  assert.equal(magnetWithout(m, new Set()), m);
  assert.deepEqual(magnetAddresses(magnetWithout(m, drop)).map(addressKey), ['tracker http://t.example/a', 'peer 10.0.0.1:6881']);
});

test('torrentWithout: dropped trackers, web seeds and DHT nodes go (emptied tiers and keys too); info is untouched, so is the info hash', () => {
  // keys out of order and a non-canonical info dict: copied byte for byte, never re-encoded
  const info = Buffer.from('d6:lengthi1e4:name1:x12:piece lengthi16384e6:pieces20:' + '\0'.repeat(20) + '1:zi0ee', 'latin1');
  const rest = encodeBencode({
    announce: 'http://gone.invalid/announce',
    'announce-list': [['http://gone.invalid/announce'], ['http://t.example/a', 'udp://gone.invalid:80']],
    comment: 'kept',
    'url-list': ['http://gone.invalid/s/', 'http://seed.example/s/'],
    httpseeds: ['http://gone.invalid/hs'],
    nodes: [['gone.invalid', 6881], ['router.example', 6881]],
  });
  const t = Buffer.concat([rest.subarray(0, rest.length - 1), Buffer.from('4:info'), info, Buffer.from('e')]);
  const hash = (b: Buffer) => createHash('sha1').update(b.subarray(decodeBencode(b).rootRanges.get('info')!.start, decodeBencode(b).rootRanges.get('info')!.end)).digest('hex');
  const drop = new Set(torrentAddresses(t).filter((a) => a.shown.includes('gone.invalid')).map(addressKey));
  assert.equal(drop.size, 5);
  const out = torrentWithout(t, drop);
  assert.equal(hash(out), hash(t), 'the info hash is unchanged');
  assert.ok(out.includes(info), 'info byte for byte');
  assert.deepEqual(torrentAddresses(out).map(addressKey), ['tracker http://t.example/a', 'web seed http://seed.example/s/', 'DHT node router.example:6881']);
  const root = decodeBencode(out).value as Map<string, unknown>;
  assert.deepEqual([...root.keys()], ['announce-list', 'comment', 'nodes', 'url-list', 'info'], 'announce and httpseeds (all dropped) are gone, the rest in order');
  assert.ok(torrentWithout(t, new Set()).equals(t), 'nothing dropped: the same bytes');
});
