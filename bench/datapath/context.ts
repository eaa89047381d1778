// What every datapath row shares: the work dir, the random source file, the Ferry under test,
// fixtures stored in Ferry (the big file, N-entry folders) and the peers, each started on first
// use and stopped once at the end.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool } from '../lib.js';
import { startApacheDav, type Apache } from '../peers/apache.js';
import { startBareMe, type BareMe } from '../peers/bare-me.js';
import { startNginx, type Nginx } from '../peers/nginx.js';
import { startS3Peer, type S3Peer } from '../peers/s3.js';
import { startSshd, type Sshd } from '../peers/sshd.js';
import type { Ferry } from './ferry.js';

export interface Bench {
  size: number;
  repeat: number;
  /** Work dir (temp, or --keep). */
  dir: string;
  /** `size` random bytes. */
  src: string;
  srcSha256: string;
  ferry: Ferry;
  /** Untimed pause between runs: flushes dirty pages (`sync`) so write-back does not leak into the next run. */
  settle(): Promise<void>;
  /** Virtual path of a `size`-byte copy of the source stored in Ferry's `/` storage. */
  bigFile(): Promise<string>;
  /** Virtual path of a folder of `n` empty files in Ferry's `/` storage (host path: filesDir + path). */
  folder(n: number): Promise<string>;
  /** An ed25519 key pair for SFTP (registered with Ferry on first use). */
  sshKey(): Promise<{ key: string; pub: string }>;
  nginx(): Promise<Nginx>;
  sshd(): Promise<Sshd>;
  apache(): Promise<Apache>;
  bareMe(): Promise<BareMe>;
  s3(): Promise<S3Peer>;
  /** Stops every peer that was started. */
  stopPeers(): Promise<void>;
}

/** SHA-256 (hex) of a file. */
export async function sha256File(path: string): Promise<string> {
  return fileDigest(path, 'sha256');
}

/** The hex digest of a file's content. */
export async function fileDigest(path: string, alg: 'md5' | 'sha1' | 'sha256'): Promise<string> {
  const h = createHash(alg);
  for await (const c of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(c as Buffer);
  return h.digest('hex');
}

/** Lazily started, cached value with a stop hook. */
function lazy<T extends { stop(): Promise<void> }>(start: () => Promise<T>, started: Array<() => Promise<void>>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () =>
    (p ??= start().then((v) => {
      started.push(() => v.stop());
      return v;
    }));
}

/** Builds the shared context; peers and fixtures are created on first use. */
export function createBench(o: { size: number; repeat: number; dir: string; src: string; srcSha256: string; ferry: Ferry }): Bench {
  const { dir, ferry } = o;
  const stops: Array<() => Promise<void>> = [];
  const folders = new Map<number, Promise<string>>();
  let big: Promise<string> | null = null;
  let keyP: Promise<{ key: string; pub: string }> | null = null;

  const makeFolder = async (n: number): Promise<string> => {
    const host = join(ferry.filesDir, `list${n}`);
    await mkdir(host, { recursive: true });
    const have = new Set(await readdir(host));
    const names = Array.from({ length: n }, (_, i) => `f${String(i).padStart(6, '0')}.txt`);
    for (let i = 0; i < names.length; i += 256) {
      await Promise.all(names.slice(i, i + 256).filter((x) => !have.has(x)).map((x) => writeFile(join(host, x), '')));
    }
    if ((await readdir(host)).length !== n) throw new Error(`${host} does not hold exactly ${n} entries`);
    return `/list${n}`;
  };

  const bench: Bench = {
    ...o,
    async settle() {
      await runTool('sync', []);
    },
    bigFile: () =>
      (big ??= (async () => {
        await mkdir(join(ferry.filesDir, 'bench'), { recursive: true });
        await copyFile(o.src, join(ferry.filesDir, 'bench', 'big.bin'));
        if ((await stat(join(ferry.filesDir, 'bench', 'big.bin'))).size !== o.size) throw new Error('copying the big file failed');
        await bench.settle();
        return '/bench/big.bin';
      })()),
    folder(n) {
      let p = folders.get(n);
      if (!p) folders.set(n, (p = makeFolder(n)));
      return p;
    },
    sshKey: () =>
      (keyP ??= (async () => {
        const key = join(dir, 'id_ed25519');
        await rm(key, { force: true });
        await rm(key + '.pub', { force: true });
        const r = await runTool('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ferry-bench', '-f', key]);
        if (r.code !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
        const pub = await readFile(key + '.pub', 'utf8');
        await ferry.call('POST', '/api/me/sshkey/add', { title: 'bench', key: pub });
        return { key, pub };
      })()),
    nginx: lazy(() => startNginx(join(dir, 'nginx'), ferry.filesDir), stops),
    sshd: lazy(async () => startSshd(join(dir, 'sshd'), join(dir, 'sshd-home'), (await bench.sshKey()).pub), stops),
    apache: lazy(async () => {
      // apache2's children run as www-data: let them through our folders (see peers/apache.ts)
      const docRoot = ferry.filesDir;
      for (const d of [dir, ferry.dataDir, docRoot]) await chmod(d, 0o755);
      return startApacheDav(join(dir, 'apache'), docRoot);
    }, stops),
    bareMe: lazy(() => startBareMe(ferry.jwtSecret), stops),
    s3: lazy(() => startS3Peer(dir), stops),
    async stopPeers() {
      for (const stop of stops.splice(0).reverse()) await stop().catch((e: Error) => console.error(`stopping a peer: ${e.message}`));
    },
  };
  return bench;
}
