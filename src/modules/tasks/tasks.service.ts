/**
 * Task rows in the database with in-process runners. Each task type registers a handler
 * that can (re)run a task from its stored payload, so `retry` works.
 * (Claiming across instances and resumption after a crash build on this table.)
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { DONE_STATES, TaskState, type TaskRow, type TaskType } from './task.model.js';

export interface TaskRunContext {
  signal: AbortSignal;
  /** Reports bytes done (and optionally a new total); persisted at most every 500 ms. */
  progress(doneBytes: number, totalBytes?: number): void;
  status(text: string): void;
}

export type TaskHandler = (payload: Record<string, unknown>, ctx: TaskRunContext) => Promise<void>;

const PROGRESS_EVERY_MS = 500;

export class TasksService {
  private readonly handlers = new Map<string, TaskHandler>();
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly logger: Logger,
  ) {}

  register(type: TaskType, handler: TaskHandler): void {
    this.handlers.set(type, handler);
  }

  async create(type: TaskType, name: string, creatorId: number, payload: Record<string, unknown>, totalBytes = 0): Promise<TaskRow> {
    if (!this.handlers.has(type)) throw new Error(`no handler for task type ${type}`);
    const row: TaskRow = {
      id: randomUUID(),
      type,
      name,
      creator_id: creatorId,
      state: TaskState.PENDING,
      status: 'pending',
      progress: 0,
      total_bytes: totalBytes,
      done_bytes: 0,
      error: '',
      payload: JSON.stringify(payload),
      result: 'null',
      runner: null,
      heartbeat_at: null,
      attempts: 0,
      created_at: Date.now(),
      start_time: null,
      end_time: null,
    };
    await this.db.insertInto('tasks').values(row).execute();
    this.start(row);
    return row;
  }

  private start(row: TaskRow): void {
    const handler = this.handlers.get(row.type)!;
    const abort = new AbortController();
    let total = Number(row.total_bytes);
    let lastWrite = 0;
    const update = (patch: Partial<TaskRow>) => this.db.updateTable('tasks').set(patch).where('id', '=', row.id).execute();
    const ctx: TaskRunContext = {
      signal: abort.signal,
      progress: (done, newTotal) => {
        if (newTotal !== undefined) total = newTotal;
        const now = Date.now();
        if (now - lastWrite < PROGRESS_EVERY_MS) return;
        lastWrite = now;
        void update({ done_bytes: done, total_bytes: total, progress: total > 0 ? Math.min(100, (done / total) * 100) : 0, heartbeat_at: now }).catch(() => {});
      },
      status: (text) => void update({ status: text }).catch(() => {}),
    };
    const done = (async () => {
      await update({ state: TaskState.RUNNING, status: 'running', start_time: Date.now(), attempts: Number(row.attempts) + 1, error: '', end_time: null });
      try {
        await handler(JSON.parse(row.payload) as Record<string, unknown>, ctx);
        await update({ state: TaskState.SUCCEEDED, status: 'done', progress: 100, done_bytes: total, total_bytes: total, end_time: Date.now() });
      } catch (e) {
        const canceled = abort.signal.aborted;
        if (!canceled) this.logger.warn({ task: row.id, err: (e as Error).message }, 'task failed');
        await update({
          state: canceled ? TaskState.CANCELED : TaskState.FAILED,
          status: canceled ? 'canceled' : 'failed',
          error: canceled ? '' : (e as Error).message || String(e),
          end_time: Date.now(),
        });
      } finally {
        this.running.delete(row.id);
      }
    })();
    this.running.set(row.id, { abort, done });
  }

  async get(id: string): Promise<TaskRow> {
    const r = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) throw notFound('task not found');
    return r;
  }

  async list(type: string, done: boolean, creatorId: number | null): Promise<TaskRow[]> {
    let q = this.db.selectFrom('tasks').selectAll().where('type', '=', type);
    q = done ? q.where('state', 'in', [...DONE_STATES]) : q.where('state', 'not in', [...DONE_STATES]);
    if (creatorId !== null) q = q.where('creator_id', '=', creatorId);
    return q.orderBy('created_at').execute();
  }

  async cancel(id: string): Promise<void> {
    const r = await this.get(id);
    if (DONE_STATES.includes(r.state)) throw badRequest('task has already finished');
    const run = this.running.get(id);
    if (run) {
      await this.db.updateTable('tasks').set({ state: TaskState.CANCELING, status: 'canceling' }).where('id', '=', id).execute();
      run.abort.abort(new Error('canceled'));
      await run.done;
    } else {
      await this.db.updateTable('tasks').set({ state: TaskState.CANCELED, status: 'canceled', end_time: Date.now() }).where('id', '=', id).execute();
    }
  }

  async delete(id: string): Promise<void> {
    const r = await this.get(id);
    if (!DONE_STATES.includes(r.state)) await this.cancel(id);
    await this.db.deleteFrom('tasks').where('id', '=', id).execute();
  }

  async retry(id: string): Promise<void> {
    const r = await this.get(id);
    if (r.state !== TaskState.FAILED && r.state !== TaskState.CANCELED) throw badRequest('only failed or canceled tasks can be retried');
    await this.db.updateTable('tasks').set({ state: TaskState.PENDING, status: 'pending', progress: 0, done_bytes: 0 }).where('id', '=', id).execute();
    this.start({ ...r, state: TaskState.PENDING });
  }

  async clearDone(type: string, creatorId: number | null): Promise<void> {
    let q = this.db.deleteFrom('tasks').where('type', '=', type).where('state', 'in', [...DONE_STATES]);
    if (creatorId !== null) q = q.where('creator_id', '=', creatorId);
    await q.execute();
  }

  /** Waits for a running task (tests and shutdown). */
  async settle(id: string): Promise<void> {
    await this.running.get(id)?.done;
  }

  /** Cancels everything running in this process (shutdown). */
  async stopAll(): Promise<void> {
    for (const [, run] of this.running) run.abort.abort(new Error('shutting down'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }
}
