// Small helpers shared by the benchmarks.
import { spawn, spawnSync } from 'node:child_process';
import { randomFill } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const randomFillAsync = promisify(randomFill) as unknown as (buf: Buffer) => Promise<Buffer>;

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/** Parses `1GiB`, `512MiB`, `10M`, `4096` … into bytes. */
export function parseBytes(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?$/i.exec(s.trim());
  if (!m) throw new Error(`not a byte size: ${s}`);
  const mult = { '': 1, k: 1024, m: MiB, g: GiB, t: 1024 * GiB }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g' | 't'];
  return Math.round(Number(m[1]) * mult);
}

/** `--name value` / `--flag` parsing; unknown flags are an error. */
export function parseArgs(args: string[], known: Record<string, 'value' | 'flag'>): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const key = a.replace(/^--/, '');
    if (!a.startsWith('--') || !known[key]) throw new Error(`unknown argument ${a} (known: ${Object.keys(known).map((k) => `--${k}`).join(' ')})`);
    if (known[key] === 'flag') out[key] = true;
    else {
      const v = args[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      out[key] = v;
    }
  }
  return out;
}

/** Writes `size` bytes of random content (fresh random data per block). */
export async function writeRandomFile(path: string, size: number): Promise<void> {
  const fh = await open(path, 'w');
  try {
    const block = Buffer.allocUnsafe(16 * MiB);
    for (let off = 0; off < size; off += block.length) {
      const n = Math.min(block.length, size - off);
      await randomFillAsync(block);
      await fh.write(block, 0, n, off);
    }
  } finally {
    await fh.close();
  }
}

/** Wall time of `fn` in seconds. */
export async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, collecting its output (`env` replaces the environment when given). */
export function runTool(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ?? process.env, cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** True when `cmd` can be found on PATH. */
export const haveTool = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** Prints rows as an aligned text table. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

/** Resident set size of a process (Linux `/proc/<pid>/status` VmRSS, or its peak so far: VmHWM), in bytes. */
export async function rssBytes(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): Promise<number> {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(s);
  return m ? Number(m[1]) * 1024 : 0;
}

/** CPU seconds (user + system, all threads) a process has used so far (Linux: /proc/<pid>/stat, in clock ticks). */
export async function cpuSeconds(pid: number): Promise<number> {
  const s = await readFile(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
