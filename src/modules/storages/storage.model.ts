/** A mounted storage (contract §7) and its public JSON shape. */
import { isoTime } from '../../lib/time.js';

export type SeedPolicy = 'inherit' | 'on' | 'off';
export const SEED_POLICIES: readonly SeedPolicy[] = ['inherit', 'on', 'off'];

export interface StorageRecord {
  id: number;
  mountPath: string;
  driver: string;
  order: number;
  remark: string;
  disabled: boolean;
  seedPolicy: SeedPolicy;
  proxy: boolean;
  addition: Record<string, unknown>;
  modified: number;
  /** Left out of the search index. */
  disableIndex: boolean;
}

/** `work` when initialised, `disabled`, or the initialisation error. */
export type StorageStatus = string;

