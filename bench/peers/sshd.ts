// OpenSSH 9.2 sshd with `Subsystem sftp internal-sftp` as the SFTP yardstick, with its own
// config and host key in a temp dir, on a free 127.0.0.1 port, logging in as the current user
// with the benchmark's key. `internal-sftp -d START` makes the session start in `startDir`, so
// the same batch file (relative remote names) works against it and against Ferry (which starts
// in the user's base path).
import { mkdir, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { runTool } from '../lib.js';
import { startDaemon, freePort, type Daemon } from './daemon.js';

export interface Sshd {
  port: number;
  user: string;
  daemon: Daemon;
  stop(): Promise<void>;
}

/** Starts sshd; `publicKey` is the OpenSSH public key line allowed to log in. */
export async function startSshd(dir: string, startDir: string, publicKey: string): Promise<Sshd> {
  const port = await freePort();
  await mkdir(dir, { recursive: true });
  await mkdir(startDir, { recursive: true });
  await mkdir('/run/sshd', { recursive: true }); // privilege separation directory sshd insists on
  const hostKey = join(dir, 'hostkey');
  const kg = await runTool('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  if (kg.code !== 0) throw new Error(`ssh-keygen failed: ${kg.stderr}`);
  await writeFile(join(dir, 'authorized_keys'), publicKey.trim() + '\n', { mode: 0o600 });
  const conf = join(dir, 'sshd_config');
  await writeFile(
    conf,
    `Port ${port}
ListenAddress 127.0.0.1
HostKey ${hostKey}
AuthorizedKeysFile ${join(dir, 'authorized_keys')}
PermitRootLogin yes
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PidFile ${join(dir, 'sshd.pid')}
Subsystem sftp internal-sftp -d ${startDir}
`,
  );
  const daemon = await startDaemon('sshd', '/usr/sbin/sshd', ['-D', '-e', '-f', conf], { port });
  return { port, user: userInfo().username, daemon, stop: () => daemon.stop() };
}
