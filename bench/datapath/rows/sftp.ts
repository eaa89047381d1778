// Row 5: SFTP put and get of `size` bytes with the same OpenSSH `sftp` client, the same cipher
// and the same batch files against Ferry's ssh2 server and OpenSSH's internal-sftp [≤ 1.3× each].
// Remote names are relative: Ferry starts the session in the user's base path (`/`), sshd in
// its start directory (`internal-sftp -d`).
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool, timeIt } from '../../lib.js';
import type { Bench } from '../context.js';
import { alternate, sizeLabel, timeRow, type Row } from '../report.js';

/** The cipher both servers negotiate (ssh2 and OpenSSH both offer it; AES-GCM uses AES-NI). */
export const SFTP_CIPHER = 'aes128-gcm@openssh.com';

const REMOTE = 'sftp-bench.bin';

async function sftp(key: string, port: number, user: string, batch: string): Promise<number> {
  const args = [
    '-q', '-b', batch, '-P', String(port), '-i', key,
    '-o', `Ciphers=${SFTP_CIPHER}`,
    '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'IdentitiesOnly=yes',
    '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR',
    `${user}@127.0.0.1`,
  ];
  let err = '';
  const secs = await timeIt(async () => {
    const r = await runTool('sftp', args);
    if (r.code !== 0) err = `sftp exited ${r.code}: ${r.stderr}${r.stdout}`;
  });
  if (err) throw new Error(err);
  return secs;
}

/** Put and get rows. */
export async function sftpRows(b: Bench): Promise<Row[]> {
  const { ferry, size } = b;
  const { key } = await b.sshKey();
  const sshd = await b.sshd();
  const putBatch = join(b.dir, 'put.batch');
  const getBatch = join(b.dir, 'get.batch');
  const out = join(b.dir, 'sftp-get.bin');
  await writeFile(putBatch, `put ${b.src} ${REMOTE}\n`);
  await writeFile(getBatch, `get ${REMOTE} ${out}\n`);
  const ferryFile = join(ferry.filesDir, REMOTE);
  const peerFile = join(b.dir, 'sshd-home', REMOTE);
  const expectSize = async (path: string, who: string) => {
    const st = await stat(path);
    if (st.size !== size) throw new Error(`${who}: ${path} has ${st.size} bytes, expected ${size}`);
  };
  const removeFerry = async () => {
    const has = await stat(ferryFile).then(() => true, () => false);
    if (has) await ferry.call('POST', '/api/fs/remove', { dir: '/', names: [REMOTE] });
  };

  const put = await alternate(
    'sftp put',
    b.repeat,
    async () => {
      await removeFerry();
      const s = await sftp(key, ferry.sftpPort, 'admin', putBatch);
      await expectSize(ferryFile, 'Ferry SFTP put');
      return s;
    },
    async () => {
      await rm(peerFile, { force: true });
      const s = await sftp(key, sshd.port, sshd.user, putBatch);
      await expectSize(peerFile, 'OpenSSH put');
      return s;
    },
    { unit: 's', peerName: 'OpenSSH', between: () => b.settle() },
  );
  const get = await alternate(
    'sftp get',
    b.repeat,
    async () => {
      await rm(out, { force: true });
      const s = await sftp(key, ferry.sftpPort, 'admin', getBatch);
      await expectSize(out, 'Ferry SFTP get');
      return s;
    },
    async () => {
      await rm(out, { force: true });
      const s = await sftp(key, sshd.port, sshd.user, getBatch);
      await expectSize(out, 'OpenSSH get');
      return s;
    },
    { unit: 's', peerName: 'OpenSSH', between: () => b.settle() },
  );
  await rm(out, { force: true });
  await removeFerry();
  await rm(peerFile, { force: true });
  return [
    timeRow(`5 SFTP put ${sizeLabel(size)} (${SFTP_CIPHER})`, put.ferry, put.peer, size, 1.3, 'OpenSSH'),
    timeRow(`5 SFTP get ${sizeLabel(size)} (${SFTP_CIPHER})`, get.ferry, get.peer, size, 1.3, 'OpenSSH'),
  ];
}
