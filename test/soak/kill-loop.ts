/**
 * The kill -9 loop: one Ferry process (built server) with a local storage at `/` and an S3
 * storage at `/s3`. Each iteration sends a few uploads of random sizes — plain, with declared
 * hashes (S3: straight to the final key), as tasks (spooled first), overwrites, and with
 * `X-Seed-Sidecars: oss,torrent,cas` — kills the process with SIGKILL at a random moment,
 * restarts it, waits for the start-up cleanup and for every task to settle, and checks what is
 * stored: no temp file, spool file or multipart upload is left, every visible file has exactly
 * bytes that were sent (sha256), every acknowledged upload is there, every visible sidecar
 * matches its file. Sidecars are checked only when the server writes them (probed at start).
 *
 * `runKillLoop` is called by the soak driver (≥ 100 iterations) and by test/crash (a few).
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCephS3, type CephS3 } from '../support/ceph.js';
import { createTestDatabase, type DialectName } from '../support/databases.js';
import { api } from '../support/process.js';
import { ok, patternBody, putHeaders, rawUpload, s3Addition } from '../fs/helpers.js';
import { FAST_TASKS, MiB, cleanupLog, killHard, logLines, login, multipartUploads, startNode, taskRows, until, type Node } from '../crash/support.js';
import { SIDECAR_FORMATS, acknowledge, expectUpload, localView, s3View, verifyStore, type Expectation } from '../crash/verify.js';

export interface KillLoopOptions {
  iterations: number;
  deadlineMs: number;
  log: (s: string) => void;
  /** An S3 server to use; without it one is started and stopped. */
  ceph?: CephS3;
  /** Database (default: a fresh SQLite file in the data dir). */
  dialect?: DialectName;
  /** Seed of the random choices (logged, so a failing run can be replayed). */
  seed?: number;
}

export interface KillLoopResult {
  operations: number;
  faults: number;
  filesChecked: number;
  mismatches: number;
  crashes: number;
}

const PASSWORD = 'kill-loop-pass-1';
const STORAGES = ['local', 's3'] as const;
type StorageName = (typeof STORAGES)[number];

/** mulberry32: small, seedable. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const hex = (algo: string, b: Buffer) => createHash(algo).update(b).digest('hex');

interface Sent {
  storage: StorageName;
  rel: string;
  sha256: string;
  exp: Expectation;
  asTask: boolean;
  done: Promise<{ status: number | null; taskId?: string; message?: string }>;
}

export async function runKillLoop(opts: KillLoopOptions): Promise<KillLoopResult> {
  const { log } = opts;
  const deadline = Date.now() + opts.deadlineMs;
  const seed = opts.seed ?? randomInt(2 ** 31);
  const rnd = prng(seed);
  const pick = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  log(`kill loop: ${opts.iterations} iterations, seed ${seed}`);

  const result: KillLoopResult = { operations: 0, faults: 0, filesChecked: 0, mismatches: 0, crashes: 0 };
  const problem = (p: string) => {
    result.mismatches++;
    log(`MISMATCH ${p}`);
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-kill-'));
  const db = await createTestDatabase(opts.dialect ?? 'sqlite');
  const ceph = opts.ceph ?? (await startCephS3());
  const client = ceph.client();
  const prefix = `kill-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    FERRY_DATA_DIR: dataDir,
    FERRY_ADMIN_PASSWORD: PASSWORD,
    ...(db.url ? { FERRY_DATABASE_URL: db.url } : {}),
    // Everything the killed process left is older than this by the time the next one starts.
    FERRY_STALE_TEMP_MS: '1000',
    FERRY_STALE_MULTIPART_MS: '1000',
    ...FAST_TASKS,
  };
  let node: Node | null = null;
  let killing = false;

  /** Starts the server, counts an exit we did not cause as a crash, waits for its cleanup. */
  const launch = async (): Promise<Node> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const n = await startNode('kill-loop', env);
        n.server.child.once('exit', (code, signal) => {
          if (killing) return;
          result.crashes++;
          log(`CRASH the server exited by itself (${code ?? signal}):\n${n.server.stdout().slice(-2000)}`);
        });
        const c = await cleanupLog(n);
        const settled = logLines(n, 'startup: settled uploads interrupted between commits').reduce((k, l) => k + Number(l.settled), 0);
        if (settled) log(`  ${settled} uploads with sidecars were killed between their commits and settled at start`);
        if (c.removed.length || c.aborted.length || c.spool.length) {
          log(`  cleanup: ${c.removed.length} temp files, ${c.aborted.length} multipart uploads, ${c.spool.length} spool files`);
        }
        return n;
      } catch (e) {
        result.crashes++;
        log(`CRASH start ${attempt} failed: ${(e as Error).message.slice(0, 2000)}`);
        if (attempt >= 3) throw e;
      }
    }
  };

  const expected: Record<StorageName, Map<string, Expectation>> = { local: new Map(), s3: new Map() };
  const seen: Record<StorageName, Map<string, string>> = { local: new Map(), s3: new Map() };
  const tasks = new Map<string, Sent>();
  const virtual = (s: StorageName, rel: string) => (s === 'local' ? `/kl/${rel}` : `/s3/kl/${rel}`);

  const send = (token: string, base: string, s: StorageName, rel: string, o: { sidecars: boolean; asTask: boolean; declare: boolean; size: number }): Sent => {
    const body = Buffer.alloc(o.size);
    patternBody(o.size, pick(1, 1_000_000)).fill(0, body);
    const sha256 = hex('sha256', body);
    const exp = expectUpload(expected[s], seen[s], rel, sha256, o.sidecars);
    const headers = putHeaders(token, virtual(s, rel), {
      'Content-Length': o.size,
      ...(o.sidecars ? { 'X-Seed-Sidecars': SIDECAR_FORMATS.join(',') } : {}),
      ...(o.asTask ? { 'As-Task': 'true' } : {}),
      ...(o.declare ? { 'X-File-Md5': hex('md5', body), 'X-File-Sha1': hex('sha1', body), 'X-File-Sha256': sha256 } : {}),
    });
    result.operations++;
    const done = rawUpload(base, { headers, body, chunkSize: 256 * 1024, beforeChunk: () => sleep(rnd() * 12) }).then((r) => ({
      status: r.status,
      taskId: r.json?.data?.task?.id as string | undefined,
      message: r.json?.message,
    }));
    return { storage: s, rel, sha256, exp, asTask: o.asTask, done };
  };

  /** Waits until no task is pending, running or canceling; then applies upload-task outcomes. */
  const settle = async () => {
    const rows = await until(async () => {
      const all = await taskRows(db.url, dataDir);
      return all.some((t) => [0, 1, 3].includes(t.state)) ? null : all;
    }, 120_000, 'every task to settle', 100).catch((e: Error) => {
      problem(e.message);
      return null;
    });
    for (const t of rows ?? []) {
      const sent = tasks.get(t.id);
      if (!sent) continue;
      tasks.delete(t.id);
      if (t.state === 2) acknowledge(sent.exp, sent.sha256);
      else log(`  upload task ${sent.rel} ended in state ${t.state}: ${t.error}`);
    }
  };

  const verify = async () => {
    const spool = readdirSync(join(dataDir, 'tmp'));
    for (const f of spool) problem(`spool leftover ${f}`);
    for (const u of await multipartUploads(client, ceph.bucket, prefix)) problem(`multipart upload left: ${u}`);
    const views = { local: localView(join(dataDir, 'files', 'kl')), s3: s3View(client, ceph.bucket, `${prefix}/kl`) };
    for (const s of STORAGES) {
      const r = await verifyStore(views[s], expected[s], { sidecarsSupported, seen: seen[s] });
      result.filesChecked += r.checked;
      r.problems.forEach(problem);
      for (const i of r.incomplete) log(`  visible without its sidecars (crash between commits): ${i}`);
    }
  };

  let sidecarsSupported = false;
  try {
    node = await launch();
    const token = await login(node.url, 'admin', PASSWORD);
    await ok(api(node.url, 'POST', '/api/admin/storage/create', { token, body: { mount_path: '/s3', driver: 's3', addition: s3Addition(ceph, prefix) } }));
    // Does this server write upload sidecars? (It may ignore the header.)
    const probe = send(token, node.url, 'local', 'probe.bin', { sidecars: true, asTask: false, declare: false, size: 4096 });
    const pr = await probe.done;
    if (pr.status !== 200) problem(`probe upload answered ${pr.status}: ${pr.message}`);
    else acknowledge(probe.exp, probe.sha256);
    sidecarsSupported = (await localView(join(dataDir, 'files', 'kl')).list()).files.includes('probe.bin.oss');
    log(`  sidecars ${sidecarsSupported ? 'are written: checking them' : 'are not written by this server: not checked'}`);

    for (let it = 0; it < opts.iterations && Date.now() < deadline; it++) {
      const base = node.url;
      const used = new Set<string>();
      const batch: Sent[] = [];
      for (let k = 0, n = pick(2, 5); k < n; k++) {
        const s = STORAGES[pick(0, 1)]!;
        const old = [...expected[s].entries()].filter(([rel, e]) => e.mustExist && !used.has(`${s}:${rel}`) && !rel.startsWith('probe'));
        const over = old.length > 0 && rnd() < 0.15 ? old[pick(0, old.length - 1)]! : null;
        const rel = over ? over[0] : `i${it}-${k}.bin`;
        used.add(`${s}:${rel}`);
        const sidecars = over ? over[1].sidecars : rnd() < 0.5;
        const asTask = !sidecars && !over && s === 'local' && rnd() < 0.25;
        const r = rnd();
        const size = r < 0.15 ? pick(1, 64 * 1024) : r < 0.6 ? pick(64 * 1024, 6 * MiB) : pick(6 * MiB, 20 * MiB);
        batch.push(send(token, base, s, rel, { sidecars, asTask, declare: rnd() < 0.3, size }));
      }
      await sleep(pick(30, 1500));
      killing = true;
      await killHard(node);
      killing = false;
      result.faults++;
      let acked = 0;
      for (const b of batch) {
        const r = await b.done;
        if (r.status === 200) {
          acked++;
          if (!b.asTask) acknowledge(b.exp, b.sha256);
          else if (r.taskId) tasks.set(r.taskId, b);
        } else if (r.status !== null) problem(`upload ${b.storage}:${b.rel} answered ${r.status}: ${r.message}`);
      }
      log(`iteration ${it + 1}: ${batch.length} uploads, ${acked} acknowledged before the kill`);
      await sleep(1100);
      node = await launch();
      await settle();
      await verify();
    }
    killing = true;
    const code = await node.server.stop();
    if (code !== 0) {
      result.crashes++;
      log(`CRASH graceful stop exited with ${code}`);
    }
  } finally {
    killing = true;
    if (node) await killHard(node).catch(() => undefined);
    client.destroy();
    if (!opts.ceph) await ceph.stop();
    await db.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
  log(`kill loop done: ${JSON.stringify(result)}`);
  return result;
}
