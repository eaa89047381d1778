/**
 * Queries on the `tasks` table, including the claim that lets any instance run a task:
 * PostgreSQL locks one candidate row with `FOR UPDATE SKIP LOCKED` inside a transaction;
 * SQLite (one writer at a time) claims with a conditional `UPDATE … WHERE state = pending`
 * (or a lapsed heartbeat) and retries when another runner won the row.
 * Every write made on behalf of a running task is guarded by `runner = <this runner>`,
 * so a runner that lost its task (heartbeat lapsed, taken over) cannot overwrite it.
 */
import { PostgresAdapter, sql, type ExpressionBuilder, type Kysely, type Updateable } from 'kysely';
import type { DB, TasksTable } from '../../db/schema.js';
import { DONE_STATES, normaliseTask, TaskState, type TaskRow } from './task.model.js';

export type TaskPatch = Updateable<TasksTable>;

const CLAIM_RETRIES = 5;

/** A task a runner may claim: pending, or running with a heartbeat older than `staleBefore` (its runner died). */
function claimable(staleBefore: number) {
  return (eb: ExpressionBuilder<DB, 'tasks'>) =>
    eb.or([eb('state', '=', TaskState.PENDING), eb.and([eb('state', '=', TaskState.RUNNING), eb('heartbeat_at', '<', staleBefore)])]);
}

/** The id of the oldest task of `types` a runner may claim. */
function oldestClaimable(db: Kysely<DB>, types: readonly string[], staleBefore: number) {
  return db.selectFrom('tasks').select('id').where('type', 'in', [...types]).where(claimable(staleBefore)).orderBy('created_at').limit(1);
}

export class TasksRepo {
  readonly postgres: boolean;

  constructor(private readonly db: Kysely<DB>) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  async insert(row: TaskRow): Promise<void> {
    await this.db.insertInto('tasks').values(row).execute();
  }

  async byId(id: string): Promise<TaskRow | null> {
    const r = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? normaliseTask(r) : null;
  }

  async list(type: string, done: boolean, creatorId: number | null): Promise<TaskRow[]> {
    let q = this.db.selectFrom('tasks').selectAll().where('type', '=', type);
    q = done ? q.where('state', 'in', [...DONE_STATES]) : q.where('state', 'not in', [...DONE_STATES]);
    if (creatorId !== null) q = q.where('creator_id', '=', creatorId);
    return (await q.orderBy('created_at').orderBy('id').execute()).map(normaliseTask);
  }

  /** Unconditional update by id; the number of rows changed. */
  async update(id: string, patch: TaskPatch): Promise<number> {
    const r = await this.db.updateTable('tasks').set(patch).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Update only while `runner` still owns the task. */
  async updateOwned(id: string, runner: string, patch: TaskPatch): Promise<number> {
    const r = await this.db.updateTable('tasks').set(patch).where('id', '=', id).where('runner', '=', runner).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Update only while the task is in one of `states`. */
  async updateInStates(id: string, states: number[], patch: TaskPatch): Promise<number> {
    const r = await this.db.updateTable('tasks').set(patch).where('id', '=', id).where('state', 'in', states).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('tasks').where('id', '=', id).execute();
  }

  async deleteDone(type: string, states: readonly number[], creatorId: number | null): Promise<void> {
    let q = this.db.deleteFrom('tasks').where('type', '=', type).where('state', 'in', [...states]);
    if (creatorId !== null) q = q.where('creator_id', '=', creatorId);
    await q.execute();
  }

  /** Refreshes the heartbeat of the tasks this runner holds; returns their current state (absent = deleted). */
  async heartbeat(ids: string[], runner: string, now: number): Promise<Map<string, { state: number; runner: string | null }>> {
    const out = new Map<string, { state: number; runner: string | null }>();
    if (ids.length === 0) return out;
    await this.db.updateTable('tasks').set({ heartbeat_at: now }).where('id', 'in', ids).where('runner', '=', runner).execute();
    const rows = await this.db.selectFrom('tasks').select(['id', 'state', 'runner']).where('id', 'in', ids).execute();
    for (const r of rows) out.set(r.id, { state: Number(r.state), runner: r.runner });
    return out;
  }

  /** Canceling tasks whose runner died: nobody will finish them, so they are canceled here. */
  async sweepStaleCanceling(staleBefore: number, now: number): Promise<void> {
    await this.db
      .updateTable('tasks')
      .set({ state: TaskState.CANCELED, status: 'canceled', end_time: now, runner: null })
      .where('state', '=', TaskState.CANCELING)
      .where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', staleBefore)]))
      .execute();
  }

  /**
   * Claims one runnable task of `types` for `runner`: the oldest pending one, or a running one
   * whose heartbeat is older than `staleBefore` (its runner died). Null when there is none.
   */
  async claim(types: string[], runner: string, now: number, staleBefore: number): Promise<TaskRow | null> {
    if (types.length === 0) return null;
    const claimed: TaskPatch = {
      state: TaskState.RUNNING,
      status: 'running',
      runner,
      heartbeat_at: now,
      start_time: now,
      end_time: null,
      error: '',
      progress: 0,
      done_bytes: 0,
    };
    if (this.postgres) {
      return this.db.transaction().execute(async (trx) => {
        const c = await oldestClaimable(trx, types, staleBefore).forUpdate().skipLocked().executeTakeFirst();
        if (!c) return null;
        await trx.updateTable('tasks').set(claimed).set({ attempts: sql<number>`attempts + 1` }).where('id', '=', c.id).execute();
        const r = await trx.selectFrom('tasks').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
        return normaliseTask(r);
      });
    }
    for (let i = 0; i < CLAIM_RETRIES; i++) {
      const c = await oldestClaimable(this.db, types, staleBefore).executeTakeFirst();
      if (!c) return null;
      // The same condition again, atomically: only one runner's UPDATE can match.
      const r = await this.db
        .updateTable('tasks')
        .set(claimed)
        .set({ attempts: sql<number>`attempts + 1` })
        .where('id', '=', c.id)
        .where(claimable(staleBefore))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) return this.byId(c.id);
    }
    return null;
  }
}
