// Row 12, WebDAV (HTTP Basic auth as admin), for when Ferry serves `/dav`:
//   PUT and GET of `size` bytes through /dav/… vs Ferry's own HTTP API in the same run
//   (PUT /api/fs/put and GET /d/, alternating) [within 10%: ratio ≤ 1.1×]; and the PUT as rclone's
//   owncloud/nextcloud vendors send it (OC-Checksum: SHA1:…; Ferry then also records MD5 and SHA-1) vs the API
//   doing the same work (X-File-Sha1 + X-File-Md5 declared) [≤ 1.1×]
//   PROPFIND Depth 1 of the 10,000-entry folder vs Apache mod_dav_fs on the same folder,
//   requests/s with wrk [≤ 3×]
//   Ferry's peak RSS while DAV_CONCURRENT clients PROPFIND that folder at once, DAV_ROUNDS times [≤ 200 MB]
// While `/dav/` answers 404 the Ferry cells read "n/a (/dav not served)"; Apache is still
// measured so its figure (and the recipe) stays checked.
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { timeIt } from '../../lib.js';
import { curlGetExact, curlUpload, wrkRate, wrkSeconds } from '../clients.js';
import { fileDigest, type Bench } from '../context.js';
import { alternate, median, fmtRate, limitRow, naRow, rateRow, sizeLabel, timeRow, type Row } from '../report.js';
import { watchRss } from '../rss.js';
import { LIST_CONNECTIONS, LIST_ENTRIES } from './rates.js';

const PROPFIND_BODY = '<?xml version="1.0" encoding="utf-8"?>\n<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>\n';

async function propfind(url: string, auth?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'PROPFIND',
    headers: { Depth: '1', 'Content-Type': 'application/xml', ...(auth ? { Authorization: auth } : {}) },
    body: PROPFIND_BODY,
  });
  return { status: res.status, text: await res.text() };
}

/** Concurrent PROPFINDs of the big folder while Ferry's peak RSS is watched. */
const DAV_CONCURRENT = 20;
const DAV_ROUNDS = 3;
const RSS_LIMIT = 200e6;

const countResponses = (xml: string): number => (xml.match(/<(?:[A-Za-z0-9]+:)?response[\s>]/g) ?? []).length;

/** The WebDAV rows. */
export async function davRows(b: Bench, seconds: number): Promise<Row[]> {
  const { ferry, size } = b;
  const basic = `Basic ${Buffer.from(`admin:${ferry.password}`).toString('base64')}`;
  const folder = await b.folder(LIST_ENTRIES);
  const apache = await b.apache();
  const apacheUrl = `${apache.url}${folder}/`;
  let a = { status: 0, text: '' };
  const apacheSingle = await timeIt(async () => (a = await propfind(apacheUrl)));
  if (a.status !== 207 || countResponses(a.text) !== LIST_ENTRIES + 1) {
    throw new Error(`Apache PROPFIND ${apacheUrl}: HTTP ${a.status}, ${countResponses(a.text)} responses (expected 207 and ${LIST_ENTRIES + 1})`);
  }
  const wrk = { connections: LIST_CONNECTIONS, threads: 2, seconds: wrkSeconds(seconds, [apacheSingle]), method: 'PROPFIND', body: PROPFIND_BODY };
  const davHeaders = { Depth: '1', 'Content-Type': 'application/xml' };
  const propfindWork = `12 PROPFIND Depth 1, ${LIST_ENTRIES.toLocaleString('en')} entries (${LIST_CONNECTIONS} conns)`;

  const probe = await propfind(`${ferry.url}/dav/`, basic);
  if (probe.status === 404) {
    const rates: number[] = [];
    for (let i = 0; i < b.repeat; i++) rates.push(await wrkRate(b.dir, apacheUrl, { ...wrk, headers: davHeaders }));
    console.log(`  PROPFIND Apache: ${rates.map(fmtRate).join(', ')}; Ferry /dav/ answers 404`);
    return [
      naRow(`12 WebDAV PUT ${sizeLabel(size)} vs /api/fs/put`, '/dav not served', '—', '≤ 1.1×'),
      naRow(`12 WebDAV PUT ${sizeLabel(size)}, OC-Checksum SHA1 (as rclone) vs /api/fs/put, X-File-Sha1 + X-File-Md5`, '/dav not served', '—', '≤ 1.1×'),
      naRow(`12 WebDAV GET ${sizeLabel(size)} vs /d/`, '/dav not served', '—', '≤ 1.1×'),
      naRow(propfindWork, '/dav not served', `Apache ${fmtRate(median(rates))}`, '≤ 3×'),
    ];
  }
  if (probe.status !== 207) throw new Error(`Ferry PROPFIND /dav/ answered HTTP ${probe.status}: ${probe.text.slice(0, 300)}`);
  let f = { status: 0, text: '' };
  const ferrySingle = await timeIt(async () => (f = await propfind(`${ferry.url}/dav${folder}/`, basic)));
  wrk.seconds = wrkSeconds(seconds, [apacheSingle, ferrySingle]);
  if (f.status !== 207 || countResponses(f.text) !== LIST_ENTRIES + 1) {
    throw new Error(`Ferry PROPFIND /dav${folder}/: HTTP ${f.status}, ${countResponses(f.text)} responses (expected 207 and ${LIST_ENTRIES + 1})`);
  }

  const path = await b.bigFile();
  const sign = await ferry.signOf(path);
  const apiGet = `${ferry.url}/d${path}${sign ? `?sign=${encodeURIComponent(sign)}` : ''}`;
  const stored = join(ferry.filesDir, 'bench', 'dav-up.bin');
  const checkStored = async () => {
    const st = await stat(stored);
    if (st.size !== size) throw new Error(`${stored} has ${st.size} bytes, sent ${size}`);
    await rm(stored, { force: true });
  };
  /** WebDAV PUT vs the API's PUT of the same file, each with its extra headers. */
  const putPair = (label: string, davExtra: string[], apiExtra: string[]) =>
    alternate(
      label,
      b.repeat,
      async () => {
        const s = await curlUpload(`${ferry.url}/dav/bench/dav-up.bin`, b.src, [`Authorization: ${basic}`, ...davExtra], [200, 201, 204]);
        await checkStored();
        return s;
      },
      async () => {
        const s = await curlUpload(`${ferry.url}/api/fs/put`, b.src, [`Authorization: ${ferry.token}`, `File-Path: ${encodeURIComponent('/bench/dav-up.bin')}`, ...apiExtra]);
        await checkStored();
        return s;
      },
      { unit: 's', peerName: 'Ferry API', between: () => b.settle() },
    );
  const put = await putPair('dav PUT', [], []);
  // both rclone vendors declare the source's SHA-1 with every upload: Ferry computes and checks it besides hash_on_write
  // and records MD5 and SHA-1 for such a client: the API side declares both, so both sides hash the same
  const sha1 = await fileDigest(b.src, 'sha1');
  const md5 = await fileDigest(b.src, 'md5');
  const putSha1 = await putPair('dav PUT OC-Checksum SHA1', [`OC-Checksum: SHA1:${sha1}`], [`X-File-Sha1: ${sha1}`, `X-File-Md5: ${md5}`]);
  // once, untimed (as the download row does): the first whole read of the copied file teaches the hash
  // index its digests, which would otherwise be paid by whichever side goes first
  await curlGetExact(apiGet, size);
  const get = await alternate(
    'dav GET',
    b.repeat,
    () => curlGetExact(`${ferry.url}/dav${path}`, size, [`Authorization: ${basic}`]),
    () => curlGetExact(apiGet, size),
    { unit: 's', peerName: 'Ferry /d/' },
  );
  const pf = await alternate(
    'PROPFIND',
    b.repeat,
    () => wrkRate(b.dir, `${ferry.url}/dav${folder}/`, { ...wrk, headers: { ...davHeaders, Authorization: basic } }),
    () => wrkRate(b.dir, apacheUrl, { ...wrk, headers: davHeaders }),
    { unit: 'req/s', peerName: 'Apache' },
  );
  // many clients listing the big folder at once: the multistatus is streamed, so memory stays bounded
  await b.settle();
  const rss = await watchRss(() => ferry.pid());
  // DAV_CONCURRENT clients at once, DAV_ROUNDS times (not wrk: on a loaded machine its 30 s timeout would fail the row)
  const t0 = Date.now();
  for (let r = 0; r < DAV_ROUNDS; r++) {
    const got = await Promise.all(Array.from({ length: DAV_CONCURRENT }, () => propfind(`${ferry.url}/dav${folder}/`, basic)));
    for (const g of got) if (g.status !== 207 || countResponses(g.text) !== LIST_ENTRIES + 1) throw new Error(`concurrent PROPFIND: HTTP ${g.status}, ${countResponses(g.text)} responses`);
  }
  const many = (DAV_CONCURRENT * DAV_ROUNDS) / ((Date.now() - t0) / 1000);
  const peak = await rss.stop();
  console.log(`  PROPFIND x${DAV_CONCURRENT}: ${fmtRate(many)}, peak RSS ${(peak / 1e6).toFixed(1)} MB (${(rss.start / 1e6).toFixed(1)} MB at start)`);
  return [
    limitRow(`12 PROPFIND Depth 1 x${DAV_CONCURRENT} concurrent: Ferry peak RSS`, peak, `${(peak / 1e6).toFixed(1)} MB at ${fmtRate(many)}`, RSS_LIMIT, '≤ 200 MB'),
    timeRow(`12 WebDAV PUT ${sizeLabel(size)} vs /api/fs/put`, put.ferry, put.peer, size, 1.1, 'Ferry API'),
    timeRow(`12 WebDAV PUT ${sizeLabel(size)}, OC-Checksum SHA1 (as rclone) vs /api/fs/put, X-File-Sha1 + X-File-Md5`, putSha1.ferry, putSha1.peer, size, 1.1, 'Ferry API'),
    timeRow(`12 WebDAV GET ${sizeLabel(size)} vs /d/`, get.ferry, get.peer, size, 1.1, 'Ferry /d/'),
    rateRow(propfindWork, pf.ferry, pf.peer, 3, 'Apache mod_dav_fs'),
  ];
}
