// Helpers for the seed interoperability tests against real BitTorrent and coreutils tools.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readSync, writeSync, closeSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireCommand } from '../support/commands.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LTCHECK = join(ROOT, 'test/support/ltcheck.py');
const CLI = join(ROOT, 'src/modules/seeds/cli/main.ts');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `ferry seed …` through the test entry, as a subprocess. */
export function seedCli(...args: string[]): Run {
  const r = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'seed', ...args], { cwd: ROOT, encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Like seedCli, but the command must succeed. */
export function seedOk(...args: string[]): Run {
  const r = seedCli(...args);
  if (r.status !== 0) throw new Error(`seed ${args.join(' ')} exited ${r.status}:\n${r.stderr}${r.stdout}`);
  return r;
}

export function tool(cmd: string, args: string[]): Run {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The tools these tests need; a missing one fails the test with the Debian package to install. */
export const need = {
  mktorrent: () => requireCommand('mktorrent', 'mktorrent'),
  transmission: () => requireCommand('transmission-show', 'transmission-cli'),
  coreutils: () => {
    for (const c of ['md5sum', 'sha1sum', 'sha256sum']) requireCommand(c, 'coreutils');
  },
  libtorrent: () => {
    const r = spawnSync('/usr/bin/python3', ['-c', 'import libtorrent'], { encoding: 'utf8' });
    if (r.error || r.status !== 0) {
      throw new Error('python3 libtorrent bindings are missing: apt-get install -y python3-libtorrent (and run with /usr/bin/python3)');
    }
  },
};

/** The info hash transmission-show prints (also proves it accepts the file). */
export function transmissionHash(torrent: string): string {
  const r = tool('transmission-show', [torrent]);
  if (r.status !== 0) throw new Error(`transmission-show rejected ${torrent}: ${r.stderr}${r.stdout}`);
  const m = /Hash(?: v1)?:\s*([0-9a-f]{40})/i.exec(r.stdout);
  if (!m) throw new Error(`no Hash: line in transmission-show output:\n${r.stdout}`);
  return m[1]!.toLowerCase();
}

/** mktorrent -l L (no date, so reruns are stable) → its info hash. */
export function mktorrentHash(path: string, log2: number, out: string): string {
  const r = tool('mktorrent', ['-d', '-l', String(log2), '-o', out, path]);
  if (r.status !== 0) throw new Error(`mktorrent failed: ${r.stderr}`);
  return transmissionHash(out);
}

/** libtorrent's own piece check: `pieces ok N / M OK|BAD`. */
export function ltcheck(torrent: string, dataParent: string): { ok: number; total: number; verdict: string } {
  const r = tool('/usr/bin/python3', [LTCHECK, torrent, dataParent]);
  const m = /pieces ok (\d+) \/ (\d+) (OK|BAD)/.exec(r.stdout);
  if (r.status !== 0 || !m) throw new Error(`ltcheck failed (${r.status}): ${r.stderr}${r.stdout}`);
  return { ok: Number(m[1]), total: Number(m[2]), verdict: m[3]! };
}

/** Digest of a file by coreutils (`md5sum` …), lowercase hex. */
export function coreutilsDigest(alg: 'md5' | 'sha1' | 'sha256', file: string): string {
  const r = tool(`${alg}sum`, [file]);
  if (r.status !== 0) throw new Error(`${alg}sum failed: ${r.stderr}`);
  return r.stdout.split(' ')[0]!;
}

/** Writes a tree of `{relative path: size}` with random content. */
export function writeTree(root: string, files: Record<string, number>): void {
  for (const [rel, size] of Object.entries(files)) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, randomBytes(size));
  }
}

/** Inverts the byte at `offset` of `file` (call twice to restore). */
export function flipByte(file: string, offset: number): void {
  const fd = openSync(file, 'r+');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, offset);
    b[0] = b[0]! ^ 0xff;
    writeSync(fd, b, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}
