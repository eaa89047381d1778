// Row 4: a `size` download with curl through `/d/`, `/p/` and `/sd/<share>` vs nginx's static
// GET of the same file (sendfile) [≤ 1.3× each]; plus one range request through `/d/` that must
// answer 206 with exactly the requested bytes. The `sign` comes from `/api/fs/get`'s raw_url,
// so the row keeps working whether or not `sign_all` is on.
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool } from '../../lib.js';
import { curlDownload, curlGetExact } from '../clients.js';
import type { Bench } from '../context.js';
import { alternate, sizeLabel, timeRow, type Row } from '../report.js';

/** Share `path` anonymously (no password, no expiry); returns the `/sd/<id>` URL path. */
async function shareOf(b: Bench, path: string): Promise<string> {
  const s = await b.ferry.call('POST', '/api/share/create', { files: [path], remark: 'datapath bench' });
  return new URL(String(s.url)).pathname;
}

/** Checks a range request: HTTP 206 and the very bytes of the source at that offset. */
async function rangeRow(b: Bench, url: string): Promise<Row> {
  const start = Math.min(1000, Math.max(0, b.size - 1000));
  const end = Math.min(b.size - 1, start + 999);
  const out = join(b.dir, 'range.bin');
  const d = await curlDownload(url, [], out, ['-r', `${start}-${end}`]);
  const fh = await open(b.src, 'r');
  const want = Buffer.alloc(end - start + 1);
  await fh.read(want, 0, want.length, start);
  await fh.close();
  const got = await readFile(out);
  await rm(out, { force: true });
  const ok = d.status === 206 && got.equals(want);
  return {
    work: `4 range request via /d/ (bytes ${start}-${end})`,
    ferry: `HTTP ${d.status}, ${d.bytes} bytes${ok ? ', content ok' : got.length === want.length ? ', CONTENT DIFFERS' : ''}`,
    peer: '—',
    ratio: '—',
    target: '206 + same bytes',
    met: ok ? 'yes' : 'NO',
  };
}

/** The /d/, /p/, /sd/ rows and the range check. */
export async function downloadRows(b: Bench): Promise<Row[]> {
  const { ferry, size } = b;
  const nginx = await b.nginx();
  const path = await b.bigFile();
  const sign = await ferry.signOf(path);
  const q = sign ? `?sign=${encodeURIComponent(sign)}` : '';
  const sd = await shareOf(b, path);
  const peerUrl = `${nginx.url}/files${path}`;

  // once, untimed: the bytes Ferry sends are the bytes stored
  const sum = await runTool('sh', ['-c', 'curl -sS -f --noproxy "*" "$1" | sha256sum', 'sh', `${ferry.url}/d${path}${q}`]);
  if (sum.code !== 0 || !sum.stdout.startsWith(b.srcSha256)) throw new Error(`/d${path} sent different bytes: ${sum.stdout}${sum.stderr}`);

  const rows: Row[] = [];
  for (const [name, url] of [
    ['/d/', `${ferry.url}/d${path}${q}`],
    ['/p/', `${ferry.url}/p${path}${q}`],
    ['/sd/ (share)', `${ferry.url}${sd}`],
  ] as const) {
    const t = await alternate(`download ${name}`, b.repeat, () => curlGetExact(url, size), () => curlGetExact(peerUrl, size), { unit: 's', peerName: 'nginx' });
    rows.push(timeRow(`4 download ${sizeLabel(size)} via ${name}`, t.ferry, t.peer, size, 1.3, 'nginx GET'));
  }
  rows.push(await rangeRow(b, `${ferry.url}/d${path}${q}`));
  return rows;
}
