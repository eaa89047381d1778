import { spawnSync } from 'node:child_process';

/** Throws (failing the test, never skipping) when `cmd` is not on PATH. */
export function requireCommand(cmd: string, debianPackage: string): void {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} is not installed: apt-get install -y ${debianPackage}`);
}

/** Runs a command, returns stdout; throws with stderr on a non-zero exit. */
export function run(cmd: string, args: string[], opts: { input?: string | Buffer; cwd?: string } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input: opts.input, cwd: opts.cwd });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}
