// Request-rate rows, measured with wrk (2 threads) alternating with the peer:
//   6 list: POST /api/fs/list of a 10,000-entry folder vs nginx autoindex JSON of the same
//     folder, 4 connections each [ratio ≤ 3×]
//   7 me:   GET /api/me vs a bare Fastify 5 + jose route, 16 connections [Ferry ≥ 0.7× bare]
import { api } from '../../../test/support/process.js';
import { timeIt } from '../../lib.js';
import { curlDownload, wrkRate, wrkSeconds } from '../clients.js';
import type { Bench } from '../context.js';
import { alternate, rateRow, type Row } from '../report.js';

export const LIST_ENTRIES = 10_000;
export const LIST_CONNECTIONS = 4;
export const ME_CONNECTIONS = 16;

/** The JSON body the OpenList web UI sends to list a folder (all entries on one page). */
export const listBody = (path: string): string => JSON.stringify({ path, password: '', page: 1, per_page: 0, refresh: false });

/** Row 6. */
export async function listRow(b: Bench, seconds: number): Promise<Row[]> {
  const { ferry } = b;
  const nginx = await b.nginx();
  const folder = await b.folder(LIST_ENTRIES);
  const body = listBody(folder);
  let got: any;
  const ferrySingle = await timeIt(async () => (got = await ferry.call('POST', '/api/fs/list', JSON.parse(body))));
  if (got.total !== LIST_ENTRIES || got.content.length !== LIST_ENTRIES) throw new Error(`Ferry lists ${got.total} entries in ${folder}, expected ${LIST_ENTRIES}`);
  const peerUrl = `${nginx.url}/listing${folder}/`;
  let peerList: unknown[] = [];
  const peerSingle = await timeIt(async () => (peerList = (await fetch(peerUrl).then((r) => r.json())) as unknown[]));
  if (peerList.length !== LIST_ENTRIES) throw new Error(`nginx lists ${peerList.length} entries, expected ${LIST_ENTRIES}`);

  const wrk = { connections: LIST_CONNECTIONS, threads: 2, seconds: wrkSeconds(seconds, [ferrySingle, peerSingle]) };
  console.log(`  one listing: Ferry ${ferrySingle.toFixed(2)} s, nginx ${peerSingle.toFixed(2)} s; wrk runs of ${wrk.seconds} s`);
  const r = await alternate(
    'list 10k',
    b.repeat,
    () => wrkRate(b.dir, `${ferry.url}/api/fs/list`, { ...wrk, method: 'POST', body, headers: { Authorization: ferry.token, 'Content-Type': 'application/json' } }),
    () => wrkRate(b.dir, peerUrl, wrk),
    { unit: 'req/s', peerName: 'nginx' },
  );
  return [rateRow(`6 POST /api/fs/list, ${LIST_ENTRIES.toLocaleString('en')} entries (${LIST_CONNECTIONS} conns)`, r.ferry, r.peer, 3, 'nginx autoindex')];
}

/** Row 7. */
export async function meRow(b: Bench, seconds: number): Promise<Row[]> {
  const { ferry } = b;
  const bare = await b.bareMe();
  for (const base of [ferry.url, bare.url]) {
    const r = await api(base, 'GET', '/api/me', { token: ferry.token });
    if (r.status !== 200 || r.body.data?.username !== 'admin') throw new Error(`${base}/api/me answered HTTP ${r.status}: ${r.body.message}`);
  }
  const bad = await curlDownload(`${bare.url}/api/me`, ['Authorization: x.y.z']);
  if (bad.status !== 401) throw new Error(`the bare /api/me accepts a bad token (HTTP ${bad.status})`);

  const wrk = { connections: ME_CONNECTIONS, threads: 2, seconds, headers: { Authorization: ferry.token } };
  const r = await alternate('GET /api/me', b.repeat, () => wrkRate(b.dir, `${ferry.url}/api/me`, wrk), () => wrkRate(b.dir, `${bare.url}/api/me`, wrk), {
    unit: 'req/s',
    peerName: 'bare',
  });
  // Ferry ≥ 0.7 × the bare rate  ⇔  bare / Ferry ≤ 1/0.7
  return [rateRow(`7 GET /api/me (${ME_CONNECTIONS} conns)`, r.ferry, r.peer, Number((1 / 0.7).toFixed(2)), 'bare Fastify+jose', '≤ 1.43× (Ferry ≥ 0.7× bare)')];
}
