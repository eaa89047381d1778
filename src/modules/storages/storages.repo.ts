import type { Kysely, Selectable } from 'kysely';
import type { DB, StoragesTable } from '../../db/schema.js';
import type { SeedPolicy, StorageRecord } from './storage.model.js';

function toRecord(r: Selectable<StoragesTable>): StorageRecord {
  let addition: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(r.addition);
    if (v && typeof v === 'object' && !Array.isArray(v)) addition = v as Record<string, unknown>;
  } catch {
    addition = {};
  }
  return {
    id: Number(r.id),
    mountPath: r.mount_path,
    driver: r.driver,
    order: r.order,
    remark: r.remark,
    disabled: r.disabled === 1,
    seedPolicy: r.seed_policy as SeedPolicy,
    proxy: r.proxy === 1,
    addition,
    modified: Number(r.modified),
    disableIndex: Number(r.disable_index) === 1,
  };
}

function toRow(s: Omit<StorageRecord, 'id'>) {
  return {
    mount_path: s.mountPath,
    driver: s.driver,
    order: s.order,
    remark: s.remark,
    disabled: s.disabled ? 1 : 0,
    seed_policy: s.seedPolicy,
    proxy: s.proxy ? 1 : 0,
    addition: JSON.stringify(s.addition),
    modified: s.modified,
    disable_index: s.disableIndex ? 1 : 0,
  };
}

/** Kysely queries for storages; no rules. */
export class StoragesRepo {
  constructor(
    private readonly db: Kysely<DB>,
    /** Where `versions` reads (PostgreSQL: the connection of the cached reads, see Database.cacheDb); else `db`. */
    private readonly reads: Kysely<DB> = db,
  ) {}

  async all(): Promise<StorageRecord[]> {
    return (await this.db.selectFrom('storages').selectAll().orderBy('order').orderBy('id').execute()).map(toRecord);
  }

  /** `id → modified` of every storage: a cheap check whether another instance changed something. */
  async versions(): Promise<Map<number, number>> {
    const rows = await this.reads.selectFrom('storages').select(['id', 'modified']).execute();
    return new Map(rows.map((r) => [Number(r.id), Number(r.modified)]));
  }

  async byId(id: number): Promise<StorageRecord | null> {
    const r = await this.db.selectFrom('storages').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toRecord(r) : null;
  }

  async byMountPath(mountPath: string): Promise<StorageRecord | null> {
    const r = await this.db.selectFrom('storages').selectAll().where('mount_path', '=', mountPath).executeTakeFirst();
    return r ? toRecord(r) : null;
  }

  async insert(s: Omit<StorageRecord, 'id'>): Promise<StorageRecord> {
    const r = await this.db.insertInto('storages').values(toRow(s)).returningAll().executeTakeFirstOrThrow();
    return toRecord(r);
  }

  async update(s: StorageRecord): Promise<void> {
    await this.db.updateTable('storages').set(toRow(s)).where('id', '=', s.id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('storages').where('id', '=', id).execute();
  }
}
