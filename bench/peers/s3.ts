// The S3 row's peers: a throwaway Ceph RADOS Gateway (test/support/ceph.ts) and Debian's
// rclone writing to the same bucket with `rclone copyto`.
//
// Two Ceph settings matter for a benchmark that writes several 1 GiB objects in a row; they are
// passed through CEPH_ARGS (read by every Ceph daemon and tool as extra command-line options, so
// they win over the test config file, which stays unchanged):
//   - memstore_device_bytes: the in-memory OSD reports 2 GiB by default and refuses writes once
//     "full"; 8 GiB of headroom (memory is only used for what is stored);
//   - rgw_gc_obj_min_wait=0: a deleted object's data is otherwise kept for 2 hours by RGW's
//     garbage collector; with 0 and an explicit `radosgw-admin gc process --include-all` after
//     each delete, at most one copy is held at a time.
import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCephS3, s3Addition, type CephS3 } from '../../test/support/ceph.js';
import { runTool } from '../lib.js';

export interface S3Peer {
  ceph: CephS3;
  client: S3Client;
  /** The `addition` of a Ferry `s3` storage rooted at `/<prefix>` of the bucket. */
  addition(prefix: string): Record<string, unknown>;
  /** `rclone copyto SRC ceph:<bucket>/<key>` with its own config file; throws on failure. */
  rcloneCopyto(src: string, key: string): Promise<void>;
  /** Size of an object, or null when absent. */
  size(key: string): Promise<number | null>;
  /** Deletes every object under `prefix` and runs RGW's garbage collector now. */
  purge(prefix: string): Promise<void>;
  stop(): Promise<void>;
}

const EXTRA_CEPH_ARGS = '--memstore_device_bytes=8589934592 --rgw_gc_obj_min_wait=0';

function restore(cephArgs: string | undefined): void {
  if (cephArgs === undefined) delete process.env.CEPH_ARGS;
  else process.env.CEPH_ARGS = cephArgs;
}

/** Starts Ceph RGW (15–40 s) and writes an rclone config for it under `dir`. */
export async function startS3Peer(dir: string): Promise<S3Peer> {
  const before = process.env.CEPH_ARGS;
  process.env.CEPH_ARGS = `${before ?? ''} ${EXTRA_CEPH_ARGS}`.trim();
  let ceph: CephS3;
  try {
    ceph = await startCephS3({ bucket: 'ferry-bench' });
  } catch (e) {
    restore(before);
    throw e;
  }
  const client = ceph.client();
  const rcloneConf = join(dir, 'rclone.conf');
  await writeFile(
    rcloneConf,
    `[ceph]
type = s3
provider = Ceph
env_auth = false
access_key_id = ${ceph.accessKeyId}
secret_access_key = ${ceph.secretAccessKey}
endpoint = ${ceph.endpoint}
region = ${ceph.region}
`,
  );
  // rclone must not see the machine's AWS_CA_BUNDLE (it would try to load it for plain http too)
  const rcloneEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && !k.startsWith('RCLONE_')));

  const size = async (key: string): Promise<number | null> => {
    try {
      const h = await client.send(new HeadObjectCommand({ Bucket: ceph.bucket, Key: key }));
      return h.ContentLength ?? null;
    } catch {
      return null;
    }
  };
  return {
    ceph,
    client,
    addition: (prefix) => s3Addition(ceph, prefix),
    async rcloneCopyto(src, key) {
      const r = await runTool('rclone', ['--config', rcloneConf, 'copyto', src, `ceph:${ceph.bucket}/${key}`], { env: rcloneEnv });
      if (r.code !== 0) throw new Error(`rclone copyto failed (${r.code}): ${r.stderr}`);
    },
    size,
    async purge(prefix) {
      for (let page = 0; page < 100; page++) {
        const l = await client.send(new ListObjectsV2Command({ Bucket: ceph.bucket, Prefix: prefix }));
        const keys = (l.Contents ?? []).map((o) => o.Key!).filter(Boolean);
        if (keys.length === 0) break;
        for (const Key of keys) await client.send(new DeleteObjectCommand({ Bucket: ceph.bucket, Key }));
      }
      const gc = await runTool('radosgw-admin', ['-c', join(ceph.dir, 'ceph.conf'), 'gc', 'process', '--include-all']);
      if (gc.code !== 0) throw new Error(`radosgw-admin gc process failed: ${gc.stderr}`);
    },
    async stop() {
      client.destroy();
      await ceph.stop();
      restore(before);
    },
  };
}
