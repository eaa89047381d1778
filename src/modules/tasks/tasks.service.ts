/**
 * Background tasks as database rows (contract §9), run by a runner loop in every instance.
 *
 * - `create` inserts a pending row (and nudges this instance's loop). Nothing runs inline.
 * - Each instance's loop claims pending tasks of the types it has handlers for, and tasks
 *   whose runner died (heartbeat older than `staleMs`), runs the handler from the stored
 *   payload, heartbeats every `heartbeatMs`, and finishes the row (guarded by runner id).
 * - A taken-over task starts again from its payload (handlers must be restartable); after
 *   `maxAttempts` starts without finishing it fails.
 * - `cancel` of a task running here aborts its signal at once; one running elsewhere is
 *   marked canceling and its runner aborts at its next heartbeat.
 * - `stopAll` (shutdown) aborts what runs here and puts it back to pending, so the next
 *   start of any instance resumes it.
 *
 * Timing defaults can be lowered with FERRY_TASK_HEARTBEAT_MS / FERRY_TASK_STALE_MS /
 * FERRY_TASK_POLL_MS (tests), or `configure()`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { isUniqueViolation } from '../../db/errors.js';
import type { DB } from '../../db/schema.js';
import { badRequest, forbidden, isAppError, notFound } from '../../lib/errors.js';
import type { User } from '../users/user.model.js';
import type { Static, TSchema } from 'typebox';
import { payloadProblem, type TaskDefinition, type TaskKind } from './task-definition.js';
import { DONE_STATES, pendingTaskRow, TASK_TYPES, TaskState, type TaskRow } from './task.model.js';
import { TasksRepo } from './tasks.repo.js';

export interface TaskRunContext {
  taskId: string;
  creatorId: number;
  /** 1 on the first start; higher after a retry-less restart (runner died, shutdown). */
  attempt: number;
  signal: AbortSignal;
  /** Reports bytes done (and optionally a new total); persisted at most every 500 ms. */
  progress(doneBytes: number, totalBytes?: number): void;
  status(text: string): void;
  /** True once the run was stopped to be resumed later (shutdown, taken over): keep what a retry needs. */
  willResume(): boolean;
}

/** What creating a task takes besides its kind. */
export interface NewTask<S extends TSchema> {
  name: string;
  creatorId: number;
  payload: Static<S>;
  totalBytes?: number;
  /**
   * A caller-chosen id (`followUpTaskId`): creating it again — the creating task re-run after its instance died —
   * returns the task the first run made instead of a second one.
   */
  id?: string;
}

/** The id of the one task `parentId` queues as `role` (a download's transfer): the same on every run of the parent. */
export function followUpTaskId(parentId: string, role: string): string {
  const h = createHash('sha256').update(`${parentId}/${role}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** How the task service finds a task's creator as they are now (users by id). */
export interface TaskCreators {
  byId(id: number): Promise<User | null>;
}

/** What modules that only queue work need of the task service. */
export type TaskQueue = Pick<TasksService, 'create'>;

export interface TaskTimings {
  /** Claim poll interval. */
  pollMs: number;
  heartbeatMs: number;
  /** A running task whose heartbeat is older than this is taken over. */
  staleMs: number;
  /** Tasks run at once per instance. */
  concurrency: number;
  /** Starts (claims) after which a task that never finishes is failed. */
  maxAttempts: number;
}

const PROGRESS_EVERY_MS = 500;
const SHUTDOWN_GRACE_MS = 10_000;

function envNumber(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

export function defaultTimings(): TaskTimings {
  return {
    pollMs: envNumber('FERRY_TASK_POLL_MS', 1000),
    heartbeatMs: envNumber('FERRY_TASK_HEARTBEAT_MS', 2000),
    staleMs: envNumber('FERRY_TASK_STALE_MS', 30_000),
    concurrency: envNumber('FERRY_TASK_CONCURRENCY', 4),
    maxAttempts: 5,
  };
}

type StopReason = 'cancel' | 'shutdown' | 'lost';

interface Running {
  abort: AbortController;
  reason: StopReason | null;
  done: Promise<void>;
}

export class TasksService {
  readonly runnerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly repo: TasksRepo;
  private readonly definitions = new Map<string, TaskDefinition>();
  private readonly running = new Map<string, Running>();
  private timings = defaultTimings();
  private started = false;
  private stopped = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private beatTimer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  private sweptAt = 0;

  constructor(
    db: Kysely<DB>,
    private readonly logger: Logger,
    private readonly creators: TaskCreators,
  ) {
    this.repo = new TasksRepo(db);
  }

  configure(t: Partial<TaskTimings>): void {
    this.timings = { ...this.timings, ...t };
  }

  /** Registers how a task type runs (the composition root registers every one before `start`). */
  register<S extends TSchema>(def: TaskDefinition<S>): void {
    this.definitions.set(def.type, def as unknown as TaskDefinition);
  }

  /** Whether `type` is a task type of this instance (declared or registered). */
  knows(type: string): boolean {
    return this.definitions.has(type) || (TASK_TYPES as readonly string[]).includes(type);
  }

  /** Fails loudly (at start-up) when one of `types` has no definition. */
  requireDefinitions(types: readonly string[]): void {
    const missing = types.filter((t) => !this.definitions.has(t));
    if (missing.length) throw new Error(`task types without a definition: ${missing.join(', ')}`);
  }

  /** Starts claiming and running tasks of the registered types (serve and worker processes). */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.startLoop();
  }

  /** Queues a task; any instance running tasks of its type will claim it. */
  async create<S extends TSchema>(kind: TaskKind<S>, t: NewTask<S>): Promise<TaskRow> {
    const problem = payloadProblem(kind, t.payload);
    if (problem) throw new Error(`${kind.type} task payload: ${problem}`);
    const row = pendingTaskRow({ id: t.id ?? randomUUID(), type: kind.type, name: t.name, creator_id: t.creatorId, payload: JSON.stringify(t.payload), total_bytes: t.totalBytes ?? 0 });
    try {
      await this.repo.insert(row);
    } catch (e) {
      const made = t.id !== undefined && isUniqueViolation(e) ? await this.repo.byId(t.id) : null;
      if (made?.type !== kind.type) throw e;
      return made;
    }
    this.kick();
    return row;
  }

  /** The task with this id, or null. */
  find(id: string): Promise<TaskRow | null> {
    return this.repo.byId(id);
  }

  // ------------------------------------------------------------------ runner loop

  private startLoop(): void {
    if (this.stopped || this.beatTimer) return;
    const schedule = () => {
      if (this.stopped) return;
      this.beatTimer = setTimeout(() => void this.beat().finally(schedule), this.timings.heartbeatMs);
      this.beatTimer.unref();
    };
    schedule();
    this.kick();
  }

  /** Looks for work now (after a create, a finish, or a retry). */
  kick(): void {
    if (!this.started || this.stopped) return;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => void this.tick(), 0);
    this.pollTimer.unref();
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.again = false;
        try {
          const now = Date.now();
          if (now - this.sweptAt >= this.timings.staleMs / 2) {
            this.sweptAt = now;
            await this.repo.sweepStaleCanceling(now - this.timings.staleMs, now);
          }
          while (!this.stopped && this.running.size < this.timings.concurrency) {
            const t = Date.now();
            const row = await this.repo.claim([...this.definitions.keys()], this.runnerId, t, t - this.timings.staleMs);
            if (!row) break;
            if (this.stopped) {
              await this.repo.updateOwned(row.id, this.runnerId, { state: TaskState.PENDING, status: 'pending', runner: null, heartbeat_at: null });
              break;
            }
            this.run(row);
          }
        } catch (e) {
          if (!this.stopped) this.logger.warn({ err: (e as Error).message }, 'task claim failed');
        }
      } while (this.again && !this.stopped);
    })();
    try {
      await this.ticking;
    } finally {
      this.ticking = null;
      if (!this.stopped) {
        if (this.pollTimer) clearTimeout(this.pollTimer);
        this.pollTimer = setTimeout(() => void this.tick(), this.timings.pollMs);
        this.pollTimer.unref();
      }
    }
  }

  private async beat(): Promise<void> {
    if (this.stopped || this.running.size === 0) return;
    try {
      const seen = await this.repo.heartbeat([...this.running.keys()], this.runnerId, Date.now());
      for (const [id, run] of this.running) {
        const s = seen.get(id);
        if (!s || s.runner !== this.runnerId) this.stop(run, 'lost', new Error('task was taken over or deleted'));
        else if (s.state === TaskState.CANCELING) this.stop(run, 'cancel', new Error('canceled'));
      }
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, 'task heartbeat failed');
    }
  }

  private stop(run: Running, reason: StopReason, err: Error): void {
    if (run.abort.signal.aborted) return;
    run.reason = reason;
    run.abort.abort(err);
  }

  private run(row: TaskRow): void {
    const def = this.definitions.get(row.type)!;
    const me = this.runnerId;
    const own = (patch: Parameters<TasksRepo['updateOwned']>[2]) => this.repo.updateOwned(row.id, me, patch);
    const running: Running = { abort: new AbortController(), reason: null, done: Promise.resolve() };
    if (row.attempts > this.timings.maxAttempts) {
      running.done = own({ state: TaskState.FAILED, status: 'failed', error: `the task was started ${row.attempts - 1} times without finishing`, end_time: Date.now(), runner: null }).then(() => {});
      return;
    }
    let total = row.total_bytes;
    let lastWrite = 0;
    const ctx: TaskRunContext = {
      taskId: row.id,
      creatorId: row.creator_id,
      attempt: row.attempts,
      signal: running.abort.signal,
      progress: (done, newTotal) => {
        if (newTotal !== undefined) total = newTotal;
        const now = Date.now();
        if (now - lastWrite < PROGRESS_EVERY_MS) return;
        lastWrite = now;
        const progress = total > 0 ? Math.min(100, (done / total) * 100) : 0;
        void own({ done_bytes: done, total_bytes: total, progress, heartbeat_at: now }).catch(() => {});
      },
      status: (text) => void own({ status: text }).catch(() => {}),
      willResume: () => running.reason === 'shutdown' || running.reason === 'lost',
    };
    running.done = (async () => {
      try {
        const payload = parsePayload(def, row.payload);
        await this.authorize(def, row.creator_id, payload);
        const result = await def.perform(payload, ctx);
        running.abort.signal.throwIfAborted();
        await own({
          state: TaskState.SUCCEEDED,
          status: 'done',
          progress: 100,
          done_bytes: total,
          total_bytes: total,
          end_time: Date.now(),
          result: JSON.stringify(result ?? null),
          runner: null,
        });
      } catch (e) {
        const failed = await this.finishFailed(row, running, e).catch((err: unknown) => {
          this.logger.warn({ task: row.id, err: String(err) }, 'task state write failed');
          return false;
        });
        if (failed && def.onFailed) await this.onFailed(def, row, e);
      } finally {
        this.running.delete(row.id);
        this.kick();
      }
    })();
    this.running.set(row.id, running);
  }

  /** Records how a run that threw ended; true when the task is now failed. */
  private async finishFailed(row: TaskRow, running: Running, e: unknown): Promise<boolean> {
    const me = this.runnerId;
    const now = Date.now();
    if (running.reason === 'lost') return false;
    if (running.reason === 'shutdown') {
      await this.repo.updateOwned(row.id, me, { state: TaskState.PENDING, status: 'pending (resumes after restart)', runner: null, heartbeat_at: null });
      return false;
    }
    const current = await this.repo.byId(row.id);
    if (running.reason === 'cancel' || current?.state === TaskState.CANCELING) {
      await this.repo.updateOwned(row.id, me, { state: TaskState.CANCELED, status: 'canceled', error: '', end_time: now, runner: null });
      return false;
    }
    const message = (e as Error)?.message || String(e);
    this.logger.warn({ task: row.id, type: row.type, err: message }, 'task failed');
    return (await this.repo.updateOwned(row.id, me, { state: TaskState.FAILED, status: 'failed', error: message, end_time: now, runner: null })) === 1;
  }

  /**
   * The creator as they are now may still run this task: they exist, are enabled, and the definition's own check
   * (permission bits, base path) passes. Runs at every claim and at retry; a task never outlives its rights.
   */
  private async authorize(def: TaskDefinition, creatorId: number, payload: unknown): Promise<void> {
    const creator = await this.creators.byId(creatorId);
    if (!creator) throw forbidden('the user who created this task no longer exists');
    if (creator.disabled) throw forbidden('the user who created this task is disabled');
    await def.authorize?.(payload, creator);
  }

  private async onFailed(def: TaskDefinition, row: TaskRow, e: unknown): Promise<void> {
    try {
      await def.onFailed!(parsePayload(def, row.payload), e instanceof Error ? e : new Error(String(e)));
    } catch (err) {
      this.logger.warn({ task: row.id, type: row.type, err: String(err) }, 'task onFailed hook failed');
    }
  }

  // ------------------------------------------------------------------ API operations

  async get(id: string): Promise<TaskRow> {
    const r = await this.find(id);
    if (!r) throw notFound('task not found');
    return r;
  }

  list(type: string, done: boolean, creatorId: number | null): Promise<TaskRow[]> {
    return this.repo.list(type, done, creatorId);
  }

  async cancel(id: string): Promise<void> {
    const r = await this.get(id);
    if (DONE_STATES.includes(r.state)) throw badRequest('task has already finished');
    if (r.state === TaskState.PENDING) {
      const n = await this.repo.updateInStates(id, [TaskState.PENDING], { state: TaskState.CANCELED, status: 'canceled', end_time: Date.now() });
      if (n === 1) return;
    }
    await this.repo.updateInStates(id, [TaskState.RUNNING, TaskState.CANCELING], { state: TaskState.CANCELING, status: 'canceling' });
    const run = this.running.get(id);
    if (run) {
      this.stop(run, 'cancel', new Error('canceled'));
      await run.done;
    }
    // Elsewhere: its runner aborts at its next heartbeat (or the sweep cancels it once stale).
  }

  async delete(id: string): Promise<void> {
    const r = await this.get(id);
    if (!DONE_STATES.includes(r.state)) await this.cancel(id);
    await this.repo.delete(id);
  }

  async retry(id: string): Promise<void> {
    const r = await this.get(id);
    if (r.state !== TaskState.FAILED && r.state !== TaskState.CANCELED) throw badRequest('only failed or canceled tasks can be retried');
    // Refused now rather than failing again at its claim (a malformed payload fails there, with its reason).
    const def = this.definitions.get(r.type);
    const payload = def ? tryParsePayload(def, r.payload) : undefined;
    if (def && payload !== undefined) {
      try {
        await this.authorize(def, r.creator_id, payload);
      } catch (e) {
        throw isAppError(e) ? e : forbidden(`the task cannot be retried: ${(e as Error).message}`);
      }
    }
    await this.repo.updateInStates(id, [TaskState.FAILED, TaskState.CANCELED], {
      state: TaskState.PENDING,
      status: 'pending',
      progress: 0,
      done_bytes: 0,
      error: '',
      attempts: 0,
      runner: null,
      heartbeat_at: null,
      start_time: null,
      end_time: null,
    });
    this.kick();
  }

  async clearDone(type: string, creatorId: number | null, states: readonly number[] = DONE_STATES): Promise<void> {
    await this.repo.deleteDone(type, states, creatorId);
  }

  /** Waits until the task has finished (any instance may run it) and returns its row. */
  async settle(id: string, timeoutMs = 120_000): Promise<TaskRow> {
    const end = Date.now() + timeoutMs;
    this.kick();
    for (;;) {
      await this.running.get(id)?.done;
      const r = await this.get(id);
      if (DONE_STATES.includes(r.state)) return r;
      if (Date.now() > end) throw new Error(`task ${id} did not finish in ${timeoutMs} ms (state ${r.state}, ${r.status})`);
      await new Promise((res) => setTimeout(res, 25));
    }
  }

  /** Shutdown: stops the loop; tasks running here are aborted and put back to pending (they resume on the next start). */
  async stopAll(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.beatTimer) clearTimeout(this.beatTimer);
    for (const run of this.running.values()) this.stop(run, 'shutdown', new Error('shutting down'));
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    await Promise.race([all, new Promise((r) => setTimeout(r, SHUTDOWN_GRACE_MS).unref())]);
    await this.ticking?.catch(() => {});
  }
}

/** The stored payload of a task, checked against its definition's schema. */
function parsePayload(def: TaskDefinition, text: string): unknown {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new Error(`the stored ${def.type} task payload is not JSON`);
  }
  const problem = payloadProblem(def, payload);
  if (problem) throw new Error(`the stored ${def.type} task payload is malformed: ${problem}`);
  return payload;
}

function tryParsePayload(def: TaskDefinition, text: string): unknown {
  try {
    return parsePayload(def, text);
  } catch {
    return undefined;
  }
}
