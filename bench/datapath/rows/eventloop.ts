// Row 9: event-loop responsiveness while Ferry (a) receives a `size` upload, (b) sends a `size`
// download, (c) lists a 100,000-entry folder (back to back, at least 3 s, at most 20 listings).
// Before each phase the server is restarted with FERRY_EVENT_LOOP_STATS=true (a fresh histogram, from
// listening to shutdown, logged at shutdown) and sent WARM_UP_REQUESTS uncounted /api/me requests.
// During each phase `GET /api/me` is timed every ~20 ms from the benchmark (all heavy clients are
// curl processes, so the probe's own loop is idle).
// `--only eventloop-upload` / `eventloop-download` / `eventloop-list` run one phase alone.
// Both p99s are reported (median over --repeat runs; max = worst run) [≤ 25 ms].
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { runTool } from '../../lib.js';
import { curlGetExact, curlUpload, probeLatency } from '../clients.js';
import type { Bench } from '../context.js';
import { eventLoopStats } from '../ferry.js';
import { fmtMs, limitRow, median, percentile, sizeLabel, type Row } from '../report.js';
import { listBody } from './rates.js';

export const HUGE_FOLDER = 100_000;
const TARGET_MS = 25;
/** /api/me requests sent after each restart, before the phase and its probe start (not counted). */
const WARM_UP_REQUESTS = 20;

type Phase = { name: string; run: () => Promise<void> };

/** Runs `work` while probing /api/me; returns the probe samples and the server's logged stats. */
async function measurePhase(b: Bench, work: () => Promise<void>): Promise<{ samples: number[]; logged: { p99: number; max: number } }> {
  const { ferry } = b;
  await ferry.restart(); // a fresh histogram for this phase
  // The restart is the benchmark's, not the workload's: the first requests of a new process (code not yet
  // compiled, statements not yet prepared) are answered before the phase, as a running server has them.
  await probeLatency(`${ferry.url}/api/me`, { headers: { Authorization: ferry.token }, everyMs: 0, more: () => true, maxSamples: WARM_UP_REQUESTS, maxMs: 60_000 });
  let running = true;
  const probe = probeLatency(`${ferry.url}/api/me`, {
    headers: { Authorization: ferry.token },
    everyMs: 20,
    more: () => running,
    maxSamples: 100_000,
    maxMs: 30 * 60_000,
  });
  try {
    await work();
  } finally {
    running = false;
  }
  const samples = await probe;
  const log = await ferry.restart();
  const logged = eventLoopStats(log);
  if (!logged) throw new Error('Ferry logged no event_loop_delay_ms at shutdown (FERRY_EVENT_LOOP_STATS=true)');
  return { samples, logged };
}

export type PhaseName = 'upload' | 'download' | 'list';

/**
 * The three phases (or those in `only`, e.g. `--only eventloop-list` runs the listing alone), two rows each (probe
 * p99 and logged p99).
 */
export async function eventLoopRows(b: Bench, only: readonly PhaseName[] = ['upload', 'download', 'list']): Promise<Row[]> {
  const { size } = b;
  const path = only.includes('download') ? await b.bigFile() : '';
  const huge = only.includes('list') ? await b.folder(HUGE_FOLDER) : '';
  await mkdir(join(b.ferry.filesDir, 'bench'), { recursive: true });
  const download = async () => {
    const sign = await b.ferry.signOf(path);
    await curlGetExact(`${b.ferry.url}/d${path}${sign ? `?sign=${encodeURIComponent(sign)}` : ''}`, size);
  };
  const upload = async () => {
    await curlUpload(`${b.ferry.url}/api/fs/put`, b.src, [`Authorization: ${b.ferry.token}`, `File-Path: ${encodeURIComponent('/bench/eventloop.bin')}`]);
    await b.ferry.call('POST', '/api/fs/remove', { dir: '/bench', names: ['eventloop.bin'] });
  };
  const listing = async () => {
    const t0 = Date.now();
    for (let i = 0; i < 20 && (i === 0 || Date.now() - t0 < 3000); i++) {
      const r = await runTool('curl', ['-sS', '--noproxy', '*', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', '-H', 'Content-Type: application/json', '-H', `Authorization: ${b.ferry.token}`, '--data', listBody(huge), `${b.ferry.url}/api/fs/list`]);
      if (r.code !== 0 || r.stdout.trim() !== '200') throw new Error(`listing ${huge} failed: HTTP ${r.stdout} ${r.stderr}`);
    }
  };
  const all: Record<PhaseName, Phase> = {
    upload: { name: `upload ${sizeLabel(size)}`, run: upload },
    download: { name: `download ${sizeLabel(size)}`, run: download },
    list: { name: `list ${HUGE_FOLDER.toLocaleString('en')} entries`, run: listing },
  };
  const phases = only.map((p) => all[p]);
  const rows: Row[] = [];
  for (const phase of phases) {
    const probeP99: number[] = [];
    const probeMax: number[] = [];
    const logP99: number[] = [];
    const logMax: number[] = [];
    for (let round = 1; round <= b.repeat; round++) {
      const { samples, logged } = await measurePhase(b, phase.run);
      probeP99.push(percentile(samples, 99));
      probeMax.push(Math.max(...samples));
      logP99.push(logged.p99);
      logMax.push(logged.max);
      console.log(`  event loop during ${phase.name} #${round}: /api/me p99 ${fmtMs(percentile(samples, 99))} max ${fmtMs(Math.max(...samples))} (${samples.length} samples); logged loop delay p99 ${fmtMs(logged.p99)} max ${fmtMs(logged.max)}`);
      await b.settle();
    }
    const pp = median(probeP99);
    const lp = median(logP99);
    rows.push(limitRow(`9 /api/me latency during ${phase.name}`, pp, `p99 ${fmtMs(pp)}, max ${fmtMs(Math.max(...probeMax))}`, TARGET_MS, `p99 ≤ ${TARGET_MS} ms`));
    rows.push(limitRow(`9 logged event-loop delay during ${phase.name}`, lp, `p99 ${fmtMs(lp)}, max ${fmtMs(Math.max(...logMax))}`, TARGET_MS, `p99 ≤ ${TARGET_MS} ms`));
  }
  return rows;
}
