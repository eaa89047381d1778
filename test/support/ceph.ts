/**
 * A throwaway single-node Ceph RADOS Gateway for tests: a real S3 API (SigV4 checked, multipart,
 * presigned URLs) on a free loopback port, data in memory, everything under a temp directory.
 *
 *   const ceph = await startCephS3();   // ~15 s cold start + warm-up
 *   ... new S3Client({ endpoint: ceph.endpoint, ... }) / driver option endpoint ...
 *   await ceph.stop();
 *
 * Never skips: without `radosgw` it throws with the apt-get line to run.
 * Leftover daemons are prevented three ways: stop() (SIGTERM, then SIGKILL), a process 'exit'
 * hook (SIGKILL), and a detached watchdog shell that kills the daemons once this process is gone
 * (covers SIGKILL of the test runner).
 */
import { after } from 'node:test';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

export const CEPH_INSTALL_HINT = 'apt-get install -y radosgw ceph-mon ceph-osd ceph-common';

export interface CephS3 {
  endpoint: string;
  region: string;
  accessKeyId: 'TESTKEY';
  secretAccessKey: 'TESTSECRET';
  /** A bucket created (and warmed up) at start. */
  bucket: string;
  dir: string;
  /** A client configured for this server (checksums only when required, path style). */
  client(): S3Client;
  stop(): Promise<void>;
}

/**
 * One Ceph RGW for the calling test file: started on first use, stopped with its client
 * after the file's tests. Call at the top level of a test file.
 */
export function cephForThisFile(): { ceph(): Promise<CephS3>; s3(): Promise<S3Client> } {
  let cephP: Promise<CephS3> | null = null;
  let client: S3Client | null = null;
  const ceph = () => (cephP ??= startCephS3());
  after(async () => {
    client?.destroy();
    if (cephP) await (await cephP).stop();
  });
  return { ceph, s3: async () => (client ??= (await ceph()).client()) };
}

/** The s3 driver options (`addition`) for this server, rooted at `/<prefix>` of its bucket. */
export function s3Addition(c: Pick<CephS3, 'bucket' | 'endpoint' | 'region' | 'accessKeyId' | 'secretAccessKey'>, prefix: string) {
  return {
    bucket: c.bucket,
    endpoint: c.endpoint,
    region: c.region,
    access_key_id: c.accessKeyId,
    secret_access_key: c.secretAccessKey,
    force_path_style: true,
    root_folder_path: `/${prefix}`,
  };
}

const SCRIPT = fileURLToPath(new URL('./ceph-s3.sh', import.meta.url));
const REQUIRED_BINARIES = ['radosgw', 'ceph-mon', 'ceph-osd', 'ceph', 'monmaptool', 'radosgw-admin'];

function onPath(bin: string): boolean {
  const dirs = (process.env.PATH ?? '').split(delimiter).concat(['/usr/bin', '/usr/sbin', '/bin', '/sbin']);
  return dirs.some((d) => d && existsSync(join(d, bin)));
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A port P with P and P+1 free on 127.0.0.1 (RGW on P, monitor on P+1). */
async function freePortPair(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    if (p < 65000 && (await portFree(p)) && (await portFree(p + 1))) return p;
  }
  throw new Error('no free loopback port pair for Ceph');
}

function readPids(dir: string): number[] {
  const run = join(dir, 'run');
  if (!existsSync(run)) return [];
  const pids: number[] = [];
  for (const f of readdirSync(run)) {
    if (!f.endsWith('.pid')) continue;
    const n = Number(readFileSync(join(run, f), 'utf8').trim());
    if (Number.isInteger(n) && n > 1) pids.push(n);
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killAll(pids: number[], sig: NodeJS.Signals): void {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      /* gone */
    }
  }
}

function logTail(dir: string): string {
  const out: string[] = [];
  for (const f of ['mon.a.log', 'osd.0.log', 'client.rgw.a.log']) {
    const p = join(dir, 'log', f);
    if (existsSync(p)) out.push(`--- ${f}\n` + readFileSync(p, 'utf8').split('\n').slice(-15).join('\n'));
  }
  return out.join('\n');
}

export function cephClient(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'TESTKEY', secretAccessKey: 'TESTSECRET' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

async function retry<T>(what: string, deadlineMs: number, fn: () => Promise<T>): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > end) throw new Error(`Ceph warm-up: ${what} kept failing: ${(e as Error).message}`, { cause: e });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export async function startCephS3(opts: { bucket?: string } = {}): Promise<CephS3> {
  const missing = REQUIRED_BINARIES.filter((b) => !onPath(b));
  if (missing.length) {
    throw new Error(`Ceph RGW is needed for the S3 tests but ${missing.join(', ')} is not installed. Run as root: ${CEPH_INSTALL_HINT}`);
  }
  const dir = await mkdtemp(join(os.tmpdir(), 'ferry-ceph-'));
  const port = await freePortPair();
  const endpoint = `http://127.0.0.1:${port}`;

  // Watchdog: once this process is gone (even SIGKILLed), kill the daemons and remove the dir.
  const watchdog = spawn(
    'sh',
    [
      '-c',
      'while kill -0 "$1" 2>/dev/null; do sleep 1; done; for f in "$2"/run/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done; rm -rf "$2"',
      'ferry-ceph-watchdog',
      String(process.pid),
      dir,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();

  const onExit = () => {
    killAll(readPids(dir), 'SIGKILL');
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  };
  process.on('exit', onExit);

  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      const pids = readPids(dir);
      killAll(pids, 'SIGTERM');
      const deadline = Date.now() + 8000;
      while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      killAll(pids.filter(alive), 'SIGKILL');
      const hard = Date.now() + 3000;
      while (pids.some(alive) && Date.now() < hard) await new Promise((r) => setTimeout(r, 50));
      process.off('exit', onExit);
      if (watchdog.pid) killAll([watchdog.pid], 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    await new Promise<void>((resolve, reject) => {
      execFile('sh', [SCRIPT, dir, String(port)], { timeout: 180_000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`ceph-s3.sh failed (${err.message}):\n${stdout}\n${stderr}\n${logTail(dir)}`));
        else resolve();
      });
    });
    const bucket = opts.bucket ?? 'ferry-test';
    const c = cephClient(endpoint);
    try {
      // First bucket, first upload and first multipart upload are slow on a fresh cluster.
      await retry('create bucket', 60_000, () => c.send(new CreateBucketCommand({ Bucket: bucket })));
      await retry('put', 30_000, () => c.send(new PutObjectCommand({ Bucket: bucket, Key: '.warmup', Body: 'x' })));
      await retry('multipart', 30_000, async () => {
        const mp = await c.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: '.warmup-mp' }));
        const p = await c.send(new UploadPartCommand({ Bucket: bucket, Key: '.warmup-mp', UploadId: mp.UploadId, PartNumber: 1, Body: 'y' }));
        await c.send(
          new CompleteMultipartUploadCommand({ Bucket: bucket, Key: '.warmup-mp', UploadId: mp.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p.ETag }] } }),
        );
      });
      await c.send(new DeleteObjectCommand({ Bucket: bucket, Key: '.warmup' }));
      await c.send(new DeleteObjectCommand({ Bucket: bucket, Key: '.warmup-mp' }));
    } finally {
      c.destroy();
    }
    return {
      endpoint,
      region: 'us-east-1',
      accessKeyId: 'TESTKEY',
      secretAccessKey: 'TESTSECRET',
      bucket,
      dir,
      client: () => cephClient(endpoint),
      stop,
    };
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}
