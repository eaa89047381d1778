/**
 * Every query on `dav_props` and `dav_locks` (no rules: webdav.locks.ts and the handlers hold them).
 * Paths are full virtual paths. Prefix tests use substr with lengths in code points (what `substr`
 * counts on both SQLite and PostgreSQL), so no collation or LIKE escaping is involved.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface DeadProp {
  ns: string;
  name: string;
  /** The value as XML (children of the property element). */
  value: string;
}

export interface LockRow {
  token: string;
  path: string;
  deep: boolean;
  exclusive: boolean;
  owner: string;
  userId: number;
  timeoutS: number;
  expiresAt: number;
}

const codePoints = (s: string): number => [...s].length;

function under(path: string) {
  const prefix = path === '/' ? '/' : path + '/';
  return sql<boolean>`(path = ${path} or substr(path, 1, ${codePoints(prefix)}) = ${prefix})`;
}

function rebased(src: string, dst: string) {
  return sql<string>`${dst} || substr(path, ${codePoints(src) + 1})`;
}

/** The ancestors of `path` (itself included): `/`, `/a`, `/a/b`. */
export function ancestors(path: string): string[] {
  const out = ['/'];
  const parts = path.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) out.push('/' + parts.slice(0, i).join('/'));
  return out;
}

export class DavStore {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly now: () => number = Date.now,
  ) {}

  // --- dead properties

  async props(path: string): Promise<DeadProp[]> {
    return this.db.selectFrom('dav_props').select(['ns', 'name', 'value']).where('path', '=', path).execute();
  }

  /** Dead properties of `dir` and of its direct children (not deeper), by path. */
  async propsOfChildren(dir: string): Promise<Map<string, DeadProp[]>> {
    const prefix = dir === '/' ? '/' : dir + '/';
    // the rest after the prefix holds no '/' (replace and length exist on SQLite and PostgreSQL)
    const rest = sql<string>`substr(path, ${codePoints(prefix) + 1})`;
    const rows = await this.db
      .selectFrom('dav_props')
      .select(['path', 'ns', 'name', 'value'])
      .where(under(dir))
      .where((eb) => eb.or([eb('path', '=', dir), sql<boolean>`length(replace(${rest}, '/', '')) = length(${rest})`]))
      .execute();
    const out = new Map<string, DeadProp[]>();
    for (const r of rows) {
      let l = out.get(r.path);
      if (!l) out.set(r.path, (l = []));
      l.push({ ns: r.ns, name: r.name, value: r.value });
    }
    return out;
  }

  /** Applies sets and removes in order, all or nothing. */
  async patch(path: string, ops: ReadonlyArray<{ op: 'set'; prop: DeadProp } | { op: 'remove'; ns: string; name: string }>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const o of ops) {
        if (o.op === 'set') {
          await trx
            .insertInto('dav_props')
            .values({ path, ns: o.prop.ns, name: o.prop.name, value: o.prop.value })
            .onConflict((oc) => oc.columns(['path', 'ns', 'name']).doUpdateSet({ value: o.prop.value }))
            .execute();
        } else {
          await trx.deleteFrom('dav_props').where('path', '=', path).where('ns', '=', o.ns).where('name', '=', o.name).execute();
        }
      }
    });
  }

  async deleteProps(path: string): Promise<void> {
    await this.db.deleteFrom('dav_props').where(under(path)).execute();
  }

  async moveProps(src: string, dst: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('dav_props').where(under(dst)).execute();
      await trx.updateTable('dav_props').set({ path: rebased(src, dst) }).where(under(src)).execute();
    });
  }

  async copyProps(src: string, dst: string, deep: boolean): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('dav_props').where(under(dst)).execute();
      await trx
        .insertInto('dav_props')
        .columns(['path', 'ns', 'name', 'value'])
        .expression(
          trx
            .selectFrom('dav_props')
            .select([rebased(src, dst).as('path'), 'ns', 'name', 'value'])
            .where(deep ? under(src) : sql<boolean>`path = ${src}`),
        )
        .execute();
    });
  }

  // --- locks

  private toLock(r: { token: string; path: string; deep: number; exclusive: number; owner: string; user_id: number; timeout_s: number; expires_at: number }): LockRow {
    return {
      token: r.token,
      path: r.path,
      deep: Number(r.deep) === 1,
      exclusive: Number(r.exclusive) === 1,
      owner: r.owner,
      userId: Number(r.user_id),
      timeoutS: Number(r.timeout_s),
      expiresAt: Number(r.expires_at),
    };
  }

  /** Live locks that cover `path`: on it, on an ancestor with depth infinity, or (`withBelow`) below it. */
  async locksAffecting(path: string, withBelow: boolean): Promise<LockRow[]> {
    const anc = ancestors(path);
    const rows = await this.db
      .selectFrom('dav_locks')
      .selectAll()
      .where('expires_at', '>', this.now())
      .where((eb) =>
        eb.or([
          eb('path', '=', path),
          eb.and([eb('path', 'in', anc), eb('deep', '=', 1)]),
          ...(withBelow ? [under(path)] : []),
        ]),
      )
      .execute();
    return rows.map((r) => this.toLock(r));
  }

  async lockByToken(token: string): Promise<LockRow | null> {
    const r = await this.db.selectFrom('dav_locks').selectAll().where('token', '=', token).where('expires_at', '>', this.now()).executeTakeFirst();
    return r ? this.toLock(r) : null;
  }

  /**
   * Inserts a lock unless a conflicting live one exists (checked and inserted in one transaction; on
   * PostgreSQL under an advisory lock so two instances cannot both win). Returns false on conflict.
   */
  async addLock(l: LockRow, conflicts: (existing: LockRow[]) => boolean): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (this.db.getExecutor().adapter instanceof PostgresAdapter) await sql`SELECT pg_advisory_xact_lock(hashtext('ferry-dav-locks'))`.execute(trx);
      const now = this.now();
      await trx.deleteFrom('dav_locks').where('expires_at', '<=', now).execute();
      const anc = ancestors(l.path);
      const rows = await trx
        .selectFrom('dav_locks')
        .selectAll()
        .where((eb) => eb.or([eb('path', 'in', anc), under(l.path)]))
        .execute();
      const existing = rows.map((r) => this.toLock(r)).filter((x) => x.path === l.path || (anc.includes(x.path) && x.deep) || (l.deep && x.path.startsWith(l.path === '/' ? '/' : l.path + '/')));
      if (conflicts(existing)) return false;
      await trx
        .insertInto('dav_locks')
        .values({ token: l.token, path: l.path, deep: l.deep ? 1 : 0, exclusive: l.exclusive ? 1 : 0, owner: l.owner, user_id: l.userId, timeout_s: l.timeoutS, expires_at: l.expiresAt, created_at: now })
        .execute();
      return true;
    });
  }

  async refreshLock(token: string, timeoutS: number): Promise<void> {
    await this.db.updateTable('dav_locks').set({ timeout_s: timeoutS, expires_at: this.now() + timeoutS * 1000 }).where('token', '=', token).execute();
  }

  async removeLock(token: string): Promise<void> {
    await this.db.deleteFrom('dav_locks').where('token', '=', token).execute();
  }

  /** A resource that is deleted or moved away loses its locks (and those below it). */
  async dropLocksUnder(path: string): Promise<void> {
    await this.db.deleteFrom('dav_locks').where(under(path)).execute();
  }
}
