// Row 8: a `size` upload with curl -T into a Ferry `s3` storage on a throwaway Ceph RGW bucket
// vs `rclone copyto` of the same file to the same bucket (rclone's defaults: multipart above
// 200 MiB, 5 MiB parts, 4 at a time) [≤ 1.3×]. Each object is deleted and RGW's garbage
// collector run after every upload, untimed.
import { timeIt } from '../../lib.js';
import { curlUpload } from '../clients.js';
import type { Bench } from '../context.js';
import { alternate, sizeLabel, timeRow, type Row } from '../report.js';

const MOUNT = '/s3';
const FERRY_PREFIX = 'ferry';
const RCLONE_PREFIX = 'rclone';

/** The S3 row (starts Ceph on first use: 15–40 s). */
export async function s3Row(b: Bench): Promise<Row[]> {
  const { ferry, size } = b;
  const s3 = await b.s3();
  const list = await ferry.call('GET', '/api/admin/storage/list');
  if (!(list.content as Array<{ mount_path: string }>).some((s) => s.mount_path === MOUNT)) {
    const st = await ferry.call('POST', '/api/admin/storage/create', { mount_path: MOUNT, driver: 's3', addition: s3.addition(FERRY_PREFIX) });
    if (st.status !== 'work') throw new Error(`the s3 storage did not initialise: ${st.status}`);
  }
  const name = 'upload.bin';
  const expect = async (key: string, who: string) => {
    const n = await s3.size(key);
    if (n !== size) throw new Error(`${who}: object ${key} has ${n ?? 'no'} bytes, sent ${size}`);
  };
  const t = await alternate(
    `s3 upload ${sizeLabel(size)}`,
    b.repeat,
    async () => {
      const s = await curlUpload(`${ferry.url}/api/fs/put`, b.src, [`Authorization: ${ferry.token}`, `File-Path: ${encodeURIComponent(`${MOUNT}/${name}`)}`]);
      await expect(`${FERRY_PREFIX}/${name}`, 'Ferry');
      await s3.purge(`${FERRY_PREFIX}/`);
      return s;
    },
    async () => {
      const s = await timeIt(() => s3.rcloneCopyto(b.src, `${RCLONE_PREFIX}/${name}`));
      await expect(`${RCLONE_PREFIX}/${name}`, 'rclone');
      await s3.purge(`${RCLONE_PREFIX}/`);
      return s;
    },
    { unit: 's', peerName: 'rclone', between: () => b.settle() },
  );
  return [timeRow(`8 upload ${sizeLabel(size)} to s3 (Ceph RGW)`, t.ferry, t.peer, size, 1.3, 'rclone copyto')];
}
