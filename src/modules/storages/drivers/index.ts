/**
 * Driver registry: what `/api/admin/driver/list` describes and what the storage service uses to
 * instantiate a storage from its `driver` + `addition`.
 */
import { LOCAL_OPTIONS, LocalDriver } from './local.js';
import { S3_OPTIONS } from './s3-options.js';
import type { S3Deps } from './s3.js';
import { DriverError, MemoryHashIndex, type HashEngine, type HashIndex, type OptionDescriptor, type StorageDriver } from './types.js';
import { validateOptions } from './util.js';

export * from './types.js';
export { LocalDriver, LOCAL_OPTIONS } from './local.js';
export { S3_OPTIONS } from './s3-options.js';
export { validateOptions } from './util.js';
export { pathExists, readBuffer, writeBuffer } from './buffers.js';
export { isDirectSendable, type DirectSendable } from './file-range.js';

export interface DriverDeps {
  /** Hash index scoped to this storage, kept current by the driver. Defaults to an in-memory index. */
  hashIndex?: HashIndex;
  /** Computes the digests writes record (`hash_on_write`); default: on the calling thread. */
  hashEngine?: HashEngine;
  /** Storage-level `proxy` flag (contract §7). Default true. */
  proxy?: boolean;
  /** Test knobs for the S3 driver. */
  s3Tuning?: S3Deps['tuning'];
}

export interface DriverConfig {
  /** Display name, as OpenList reports it. */
  displayName: string;
  /** Content can only be served by streaming through Ferry (no redirects). */
  onlyProxy: boolean;
  /** Default value of the storage's `proxy` flag. */
  defaultProxy: boolean;
}

export interface DriverDefinition {
  name: string;
  config: DriverConfig;
  options: readonly OptionDescriptor[];
  /** Validates `addition` (→ `invalid_option` naming the option) and builds a ready driver. */
  create(addition: unknown, deps?: DriverDeps): Promise<StorageDriver>;
}

export const drivers = {
  local: {
    name: 'local',
    config: { displayName: 'Local', onlyProxy: true, defaultProxy: true },
    options: LOCAL_OPTIONS,
    async create(addition: unknown, deps: DriverDeps = {}) {
      const opts = validateOptions(LOCAL_OPTIONS, addition);
      return LocalDriver.create(opts, { hashIndex: deps.hashIndex ?? new MemoryHashIndex(), hashEngine: deps.hashEngine });
    },
  },
  s3: {
    name: 's3',
    config: { displayName: 'S3', onlyProxy: false, defaultProxy: true },
    options: S3_OPTIONS,
    async create(addition: unknown, deps: DriverDeps = {}) {
      const opts = validateOptions(S3_OPTIONS, addition);
      // Loaded on first use: the AWS SDK costs ~25 MB of memory that local-only servers never need.
      const { S3Driver } = await import('./s3.js');
      return S3Driver.create(opts, { proxy: deps.proxy, tuning: deps.s3Tuning, hashIndex: deps.hashIndex, hashEngine: deps.hashEngine });
    },
  },
} satisfies Record<string, DriverDefinition>;

export type DriverName = keyof typeof drivers;

export function getDriverDefinition(name: string): DriverDefinition {
  const key = name.toLowerCase();
  if (!Object.hasOwn(drivers, key)) throw new DriverError('invalid_option', `no driver named: ${name}`, { option: 'driver' });
  return drivers[key as DriverName];
}

export function createDriver(name: string, addition: unknown, deps?: DriverDeps): Promise<StorageDriver> {
  return getDriverDefinition(name).create(addition, deps);
}
