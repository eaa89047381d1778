/**
 * Typed tasks. A task type is declared once, with the schema of its stored payload (`taskKind`); the module
 * that owns the work defines what running it means (`defineTask`, in its `*.task.ts`) and the composition root
 * registers every definition. Payloads are checked against their schema when a task is created and again when
 * it is claimed, so a malformed stored payload fails that task with a clear error instead of reaching the
 * handler (or crashing the runner).
 */
import type { Static, TSchema } from 'typebox';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import type { User } from '../users/user.model.js';
import type { TaskType } from './task.model.js';
import type { TaskRunContext } from './tasks.service.js';

/** A task type and the schema of its payload: what creating a task needs. */
export interface TaskKind<S extends TSchema = TSchema> {
  /** One of TASK_TYPES for the app's own tasks (those have API routes and are required at start-up). */
  readonly type: TaskType | (string & {});
  readonly payload: S;
}

export function taskKind<S extends TSchema>(type: TaskKind['type'], payload: S): TaskKind<S> {
  return { type, payload };
}

/** A task kind and what running it means. */
export interface TaskDefinition<S extends TSchema = TSchema> extends TaskKind<S> {
  /** Runs the task from its payload; the resolved value becomes the task's `result`. Must be restartable. */
  perform(payload: Static<S>, run: TaskRunContext): Promise<unknown>;
  /** Called once when the task ends failed (after its error is recorded); best effort. */
  onFailed?(payload: Static<S>, error: Error): Promise<void>;
  /**
   * Whether the creator, as they are NOW (existing and enabled: checked by the task service), may still do what
   * the payload says: permission bits, paths inside the base path, names not hidden from them. Throws (AppError,
   * or rejects) when not. Runs when the
   * task is retried and each time it is claimed, so a task never acts with rights its creator has lost.
   */
  authorize?(payload: Static<S>, creator: User): void | Promise<void>;
}

export interface TaskHooks<S extends TSchema> {
  onFailed?: TaskDefinition<S>['onFailed'];
  authorize?: TaskDefinition<S>['authorize'];
}

export function defineTask<S extends TSchema>(kind: TaskKind<S>, perform: TaskDefinition<S>['perform'], hooks: TaskHooks<S> = {}): TaskDefinition<S> {
  return { ...kind, perform, ...hooks };
}

/** The first problem of `payload` against the kind's schema, or null when it conforms. */
export function payloadProblem(kind: TaskKind, payload: unknown): string | null {
  if (Value.Check(kind.payload, payload)) return null;
  const first = Value.Errors(kind.payload, payload)[0] as { instancePath?: string; message?: string } | undefined;
  return `${first?.instancePath || '(root)'} ${first?.message ?? 'does not match the schema'}`;
}

/**
 * One task type run by several modules (e.g. `offline_download`: seed files fetched by the seeds module, URLs
 * and torrents handed to a tool by the offline module). The stored payload must match exactly one part's
 * schema; that part runs it. Each module still creates its tasks with its own kind (its own schema).
 */
export function combineTasks(type: TaskKind['type'], parts: readonly TaskDefinition[]): TaskDefinition {
  if (parts.length === 0 || parts.some((p) => p.type !== type)) throw new Error(`combineTasks(${type}): every part must be of that type`);
  if (parts.length === 1) return parts[0]!;
  const partOf = (payload: unknown): TaskDefinition => {
    const hit = parts.filter((p) => Value.Check(p.payload, payload));
    if (hit.length !== 1) throw new Error(`${type} task payload matches ${hit.length} of its ${parts.length} kinds`);
    return hit[0]!;
  };
  return {
    type,
    payload: Type.Union(parts.map((p) => p.payload)),
    perform: (payload, run) => partOf(payload).perform(payload, run),
    onFailed: async (payload, error) => {
      const p = partOf(payload);
      await p.onFailed?.(payload, error);
    },
    authorize: (payload, creator) => partOf(payload).authorize?.(payload, creator),
  };
}
