/** TaskInfo (fs-api.md §6.4): `creator_role` is -1 when unknown. */
import { isoTime } from '../../lib/time.js';
import type { TaskRow } from './task.model.js';
import type { TaskInfo } from './tasks.schemas.js';

/** TaskInfo (fs-api.md §6.4): `creator_role` is -1 when unknown. */
export function presentTask(r: TaskRow, creator: string, creatorRole = -1): TaskInfo {
  const progress = Number(r.progress);
  return {
    id: r.id,
    type: r.type,
    name: r.name,
    creator,
    creator_id: Number(r.creator_id),
    creator_role: creatorRole,
    state: Number(r.state),
    status: r.status,
    progress: Number.isNaN(progress) ? 100 : Math.round(progress * 100) / 100,
    start_time: r.start_time ? isoTime(Number(r.start_time)) : null,
    end_time: r.end_time ? isoTime(Number(r.end_time)) : null,
    total_bytes: Number(r.total_bytes),
    done_bytes: Number(r.done_bytes),
    attempts: Number(r.attempts),
    error: r.error,
  };
}
