// Ferry's data path side by side with the peers a user would run on the same box (issue #17).
//
//   npm run build && npm run bench -- datapath [--size 1GiB] [--repeat 3] [--only upload,sftp,…]
//                                             [--rate-seconds 6] [--keep DIR]
//
// Every row runs Ferry and its peer alternately (Ferry, peer, Ferry, peer, …) --repeat times and
// compares the medians: ratio = Ferry time / peer time, or for request rates peer rate / Ferry
// rate, so a ratio always reads "how many times slower than the peer" (lower is better). The
// Ferry under test is the BUILT server on a fresh SQLite data dir; peers are Debian daemons
// started here with their own config in the work dir on loopback ports and stopped by PID.
// Rows (names for --only): upload, upload-oss, upload-nohash, download, sftp, list, me, s3,
// eventloop (eventloop-upload, eventloop-download, eventloop-list: one phase alone), slow-readers, dav; row 10 (Ferry's peak RSS) is
// measured during every row run.
// Layout: bench/datapath/* (context, clients, report, rows/*), bench/peers/* (one per peer).
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { requireBuild } from '../test/support/process.js';
import { createBench, sha256File, type Bench } from './datapath/context.js';
import { startFerry } from './datapath/ferry.js';
import { limitRow, printMarkdown, sizeLabel, type Row } from './datapath/report.js';
import { watchRss } from './datapath/rss.js';
import { davRows } from './datapath/rows/dav.js';
import { downloadRows } from './datapath/rows/download.js';
import { eventLoopRows } from './datapath/rows/eventloop.js';
import { listRow, meRow } from './datapath/rows/rates.js';
import { s3Row } from './datapath/rows/s3.js';
import { sftpRows } from './datapath/rows/sftp.js';
import { slowReadersRow } from './datapath/rows/slow-readers.js';
import { uploadRow } from './datapath/rows/upload.js';
import { haveTool, parseArgs, parseBytes, writeRandomFile } from './lib.js';

export const describe = 'issue #17: Ferry vs nginx/OpenSSH/Apache/rclone/bare Fastify, medians of alternating runs, with targets';

interface RowSpec {
  run: (b: Bench, rateSeconds: number) => Promise<Row[]>;
  /** [command, Debian package] pairs this row needs. */
  tools: Array<[string, string]>;
}

const NGINX: [string, string] = ['nginx', 'nginx'];
const WRK: [string, string] = ['wrk', 'wrk'];
const ROWS: Record<string, RowSpec> = {
  upload: { run: (b) => uploadRow(b, 'upload'), tools: [NGINX] },
  'upload-oss': { run: (b) => uploadRow(b, 'upload-oss'), tools: [NGINX] },
  'upload-nohash': { run: (b) => uploadRow(b, 'upload-nohash'), tools: [NGINX] },
  download: { run: downloadRows, tools: [NGINX, ['sha256sum', 'coreutils']] },
  sftp: { run: sftpRows, tools: [['sftp', 'openssh-client'], ['ssh-keygen', 'openssh-client'], ['/usr/sbin/sshd', 'openssh-server']] },
  list: { run: listRow, tools: [NGINX, WRK] },
  me: { run: meRow, tools: [WRK] },
  s3: { run: s3Row, tools: [['rclone', 'rclone'], ['radosgw', 'radosgw ceph-mon ceph-osd ceph-common']] },
  eventloop: { run: (b) => eventLoopRows(b), tools: [] },
  'eventloop-upload': { run: (b) => eventLoopRows(b, ['upload']), tools: [] },
  'eventloop-download': { run: (b) => eventLoopRows(b, ['download']), tools: [] },
  'eventloop-list': { run: (b) => eventLoopRows(b, ['list']), tools: [] },
  'slow-readers': { run: slowReadersRow, tools: [] },
  dav: { run: davRows, tools: [['/usr/sbin/apache2', 'apache2'], WRK] },
};
const ALWAYS: Array<[string, string]> = [['curl', 'curl'], ['sync', 'coreutils']];
const RSS_LIMIT = 200e6;

/** Fails early, with the apt-get line, when a tool a selected row needs is missing. */
function checkTools(selected: string[]): void {
  const missing = new Map<string, string>();
  for (const [cmd, pkg] of [...ALWAYS, ...selected.flatMap((r) => ROWS[r]!.tools)]) if (!haveTool(cmd)) missing.set(cmd, pkg);
  if (missing.size) {
    const pkgs = [...new Set(missing.values())].join(' ');
    throw new Error(`missing: ${[...missing.keys()].join(', ')}. Install with: apt-get install -y ${pkgs}`);
  }
}

export async function run(args: string[]): Promise<void> {
  const opt = parseArgs(args, { size: 'value', repeat: 'value', only: 'value', keep: 'value', 'rate-seconds': 'value' });
  const size = parseBytes(String(opt.size ?? '1GiB'));
  if (size < 2 * 1024 * 1024) throw new Error('--size must be at least 2MiB');
  const repeat = Number(opt.repeat ?? 3);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 50) throw new Error('--repeat must be an integer from 1 to 50');
  const rateSeconds = Number(opt['rate-seconds'] ?? 6);
  if (!Number.isInteger(rateSeconds) || rateSeconds < 1 || rateSeconds > 120) throw new Error('--rate-seconds must be an integer from 1 to 120');
  const selected = typeof opt.only === 'string' ? opt.only.split(',').map((s) => s.trim()).filter(Boolean) : Object.keys(ROWS);
  const unknown = selected.filter((s) => !ROWS[s]);
  if (unknown.length || selected.length === 0) throw new Error(`--only: unknown row ${unknown.join(', ') || '(none given)'}; rows: ${Object.keys(ROWS).join(', ')}`);
  checkTools(selected);
  requireBuild();

  const keep = typeof opt.keep === 'string' ? opt.keep : null;
  if (keep) await mkdir(keep, { recursive: true });
  const dir = keep ?? (await mkdtemp(join(tmpdir(), 'ferry-bench-datapath-')));
  const started = Date.now();
  // Ctrl-C / kill: run the 'exit' hooks (they SIGKILL Ferry and the peers), then drop the work dir
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(sig, () => process.exit(code));
  process.once('exit', () => {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  });
  console.log(`datapath benchmark: ${sizeLabel(size)}, ${repeat} alternating run(s) per side, rows: ${selected.join(', ')}`);
  console.log(`machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ` +
    `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; work dir ${dir}`);

  const src = join(dir, 'source.bin');
  await writeRandomFile(src, size);
  const srcSha256 = await sha256File(src);
  const ferry = await startFerry(dir);
  const b = createBench({ size, repeat, dir, src, srcSha256, ferry });
  const rows: Row[] = [];
  const rssRows: Row[] = [];
  const failed: string[] = [];
  try {
    for (const name of selected) {
      console.log(`\n## ${name}`);
      const t0 = Date.now();
      const rss = await watchRss(() => ferry.pid());
      let got: Row[];
      try {
        got = await ROWS[name]!.run(b, rateSeconds);
      } catch (e) {
        // one broken row must not cost the others' figures: report it and go on
        console.error(`  ${name} FAILED: ${(e as Error).stack ?? String(e)}`);
        failed.push(name);
        got = [{ work: name, ferry: `FAILED: ${String((e as Error).message).split('\n')[0]!.slice(0, 120)}`, peer: '—', ratio: '—', target: '—', met: 'NO' }];
      } finally {
        const peak = await rss.stop();
        const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
        rssRows.push(limitRow(`10 Ferry peak RSS during ${name}`, peak, `${mb(peak)} (${mb(rss.start)} at start)`, RSS_LIMIT, '≤ 200 MB'));
      }
      rows.push(...got);
      const died = ferry.exitedUnexpectedly();
      if (died) {
        // a crash is a result too: record it, show Ferry's last words, and go on with a new server
        console.error(`  ${died}`);
        failed.push(`${name} (Ferry exited)`);
        rows.push({ work: `Ferry exited during ${name}`, ferry: died.split('\n')[0]!, peer: '—', ratio: '—', target: 'keeps running', met: 'NO' });
        await ferry.revive();
      }
      console.log(`  (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    }
  } finally {
    await b.stopPeers();
    await ferry.stop().catch((e: Error) => console.error(`stopping Ferry: ${e.message}`));
    if (!keep) await rm(dir, { recursive: true, force: true });
  }
  console.log(`\nload average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${((Date.now() - started) / 60_000).toFixed(1)} min in all`);
  console.log('ratio = Ferry time / peer time, or peer rate / Ferry rate (lower is better); medians of alternating runs\n');
  printMarkdown([...rows, ...rssRows]);
  if (failed.length) {
    console.error(`\nrows that failed: ${failed.join(', ')} (see above)`);
    process.exitCode = 1;
  }
}
