// Row 11: `POST /api/fs/list` of a 100-entry folder, timed every ~20 ms, while 100 clients each
// download the big file through /d/ at 2 MiB/s (curl --limit-rate: the client stops reading
// its socket between bursts, so Ferry's writes back up), for a bounded ~20 s [p99 ≤ 100 ms].
// The peer column shows the same probe's p99 on an idle server, measured just before.
import { runTool, type ToolRun } from '../../lib.js';
import { probeLatency } from '../clients.js';
import type { Bench } from '../context.js';
import { fmtMs, limitRow, percentile, type Row } from '../report.js';
import { listBody } from './rates.js';

const READERS = 100;
const RATE = '2M';
const RATE_BYTES = 2 * 1024 * 1024;
const READ_SECONDS = 20;
const RAMP_MS = 2000;
const TARGET_MS = 100;

/** The slow-readers row. */
export async function slowReadersRow(b: Bench): Promise<Row[]> {
  const { ferry } = b;
  const path = await b.bigFile();
  const small = await b.folder(100);
  const sign = await ferry.signOf(path);
  const url = `${ferry.url}/d${path}${sign ? `?sign=${encodeURIComponent(sign)}` : ''}`;
  const probe = (ms: number) => {
    const end = Date.now() + ms;
    return probeLatency(`${ferry.url}/api/fs/list`, {
      method: 'POST',
      body: listBody(small),
      headers: { Authorization: ferry.token },
      everyMs: 20,
      more: () => Date.now() < end,
      maxSamples: 10_000,
      maxMs: ms + 60_000,
    });
  };

  const idle = await probe(3000);
  const readers: Array<Promise<ToolRun>> = [];
  for (let i = 0; i < READERS; i++) {
    readers.push(runTool('curl', ['-sS', '--noproxy', '*', '-o', '/dev/null', '-w', '%{http_code} %{size_download}', '--limit-rate', RATE, '--max-time', String(READ_SECONDS), url]));
  }
  await new Promise((r) => setTimeout(r, RAMP_MS));
  const busy = await probe(READ_SECONDS * 1000 - RAMP_MS - 2000);
  const done = await Promise.all(readers);
  // curl exits 28 when --max-time ends a transfer that is still going: the expected end here
  const failed = done.filter((r) => (r.code !== 0 && r.code !== 28) || !r.stdout.startsWith('200 '));
  if (failed.length) throw new Error(`${failed.length} of ${READERS} slow readers failed, e.g. code ${failed[0]!.code}: ${failed[0]!.stdout} ${failed[0]!.stderr}`);
  const bytes = done.map((r) => Number(r.stdout.split(' ')[1]));
  const avgRate = bytes.reduce((a, x) => a + x, 0) / bytes.length / READ_SECONDS;
  const p99 = percentile(busy, 99);
  console.log(
    `  slow readers: ${READERS} × curl --limit-rate ${RATE} for ${READ_SECONDS} s, mean ${(avgRate / 1024 / 1024).toFixed(2)} MiB/s each ` +
      `(limit ${(RATE_BYTES / 1024 / 1024).toFixed(0)}), slowest ${(Math.min(...bytes) / READ_SECONDS / 1024 / 1024).toFixed(2)} MiB/s; ` +
      `list p99 ${fmtMs(p99)} max ${fmtMs(Math.max(...busy))} (${busy.length} samples), idle p99 ${fmtMs(percentile(idle, 99))}`,
  );
  return [
    limitRow(
      `11 list 100 entries, ${READERS} readers at ${RATE}iB/s (/d/)`,
      p99,
      `p99 ${fmtMs(p99)}, max ${fmtMs(Math.max(...busy))}; readers ${(avgRate / 1024 / 1024).toFixed(2)} MiB/s each`,
      TARGET_MS,
      `p99 ≤ ${TARGET_MS} ms`,
      `idle p99 ${fmtMs(percentile(idle, 99))}`,
    ),
  ];
}
