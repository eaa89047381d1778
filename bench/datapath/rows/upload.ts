// Rows 1–3: a `size` upload with `curl -T` to `PUT /api/fs/put` vs the same curl PUT into nginx
// (dav_methods PUT). Ferry fsyncs before publishing a file and nginx does not; the runs are
// separated by an untimed `sync` so neither pays for the other's write-back.
//   upload          hash index on (the default local storage)            [≤ 1.6×]
//   upload-oss      the same with `X-Seed-Sidecars: oss`                  [≤ 1.6×]
//   upload-nohash   a second local storage with addition hash_on_write "" [≤ 1.2×]
import { existsSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { curlUpload } from '../clients.js';
import { sha256File, type Bench } from '../context.js';
import { alternate, sizeLabel, timeRow, type Row } from '../report.js';

export type UploadKind = 'upload' | 'upload-oss' | 'upload-nohash';

const NOHASH_MOUNT = '/nohash';

/** Creates (once) the local storage with `hash_on_write: ""`; tells whether the server kept the key. */
async function nohashStorage(b: Bench): Promise<{ echoed: boolean }> {
  const root = join(b.dir, 'nohash');
  await mkdir(root, { recursive: true });
  const list = await b.ferry.call('GET', '/api/admin/storage/list');
  let st = (list.content as Array<{ id: number; mount_path: string; addition: string }>).find((s) => s.mount_path === NOHASH_MOUNT);
  if (!st) {
    st = await b.ferry.call('POST', '/api/admin/storage/create', {
      mount_path: NOHASH_MOUNT,
      driver: 'local',
      addition: { root_folder_path: root, hash_on_write: '' },
    });
  }
  const got = await b.ferry.call('GET', `/api/admin/storage/get?id=${st!.id}`);
  const addition = JSON.parse(String(got.addition)) as Record<string, unknown>;
  return { echoed: addition.hash_on_write === '' };
}

/** One upload row (see the file header). */
export async function uploadRow(b: Bench, kind: UploadKind): Promise<Row[]> {
  const { ferry, size, src } = b;
  const nginx = await b.nginx();
  let dirVirtual = '/bench';
  let dirHost = join(ferry.filesDir, 'bench');
  let note = '';
  if (kind === 'upload-nohash') {
    const { echoed } = await nohashStorage(b);
    dirVirtual = NOHASH_MOUNT;
    dirHost = join(b.dir, 'nohash');
    if (!echoed) note = ' (option not implemented yet)';
  }
  await mkdir(dirHost, { recursive: true });
  const name = `${kind}.bin`;
  const stored = join(dirHost, name);
  const headers = [`Authorization: ${ferry.token}`, `File-Path: ${encodeURIComponent(`${dirVirtual}/${name}`)}`];
  if (kind === 'upload-oss') headers.push('X-Seed-Sidecars: oss');
  const peerFile = join(nginx.davDir, name);

  const checkSize = async (path: string, who: string) => {
    const st = await stat(path);
    if (st.size !== size) throw new Error(`${who}: ${path} has ${st.size} bytes, sent ${size}`);
  };
  const label = `${kind} ${sizeLabel(size)}`;
  const times = await alternate(
    label,
    b.repeat,
    async (round) => {
      const secs = await curlUpload(`${ferry.url}/api/fs/put`, src, headers);
      await checkSize(stored, 'Ferry');
      if (round === 1 && (await sha256File(stored)) !== b.srcSha256) throw new Error(`Ferry stored different bytes at ${stored}`);
      if (kind === 'upload-oss' && !existsSync(`${stored}.oss`)) throw new Error('X-Seed-Sidecars: oss wrote no .oss sidecar');
      await ferry.call('POST', '/api/fs/remove', { dir: dirVirtual, names: [name] });
      if (kind === 'upload-oss' && existsSync(`${stored}.oss`)) await ferry.call('POST', '/api/fs/remove', { dir: dirVirtual, names: [`${name}.oss`] });
      return secs;
    },
    async () => {
      const secs = await curlUpload(`${nginx.url}/dav/${name}`, src, [], [201, 204]);
      await checkSize(peerFile, 'nginx');
      await rm(peerFile, { force: true });
      return secs;
    },
    { unit: 's', peerName: 'nginx', between: () => b.settle() },
  );
  const work = {
    upload: `1 upload ${sizeLabel(size)}, hash index on (curl -T /api/fs/put)`,
    'upload-oss': `2 upload ${sizeLabel(size)}, X-Seed-Sidecars: oss`,
    'upload-nohash': `3 upload ${sizeLabel(size)}, hash_on_write ""${note}`,
  }[kind];
  return [timeRow(work, times.ferry, times.peer, size, kind === 'upload-nohash' ? 1.2 : 1.6, 'nginx PUT')];
}
