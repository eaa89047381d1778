/** The public shape of a storage (admin API). */
import { isoTime } from '../../lib/time.js';
import type { StorageRecord, StorageStatus } from './storage.model.js';
import type { StorageView } from './storages.schemas.js';

export function presentStorage(r: StorageRecord, status: StorageStatus): StorageView {
  return {
    id: r.id,
    mount_path: r.mountPath,
    driver: r.driver,
    order: r.order,
    remark: r.remark,
    disabled: r.disabled,
    seed_policy: r.seedPolicy,
    proxy: r.proxy,
    addition: JSON.stringify(r.addition),
    disable_index: r.disableIndex,
    status,
    modified: isoTime(r.modified),
  };
}
