/**
 * Task rows with progress, state, error and the actions their state allows (cancel, retry,
 * delete). `<TaskList tasks onChanged/>` for a list, `<LiveTask task/>` for one task that
 * follows itself (the seed wizard's background job).
 */
import { useState } from 'react';
import { useToast } from '../../components/Toast.js';
import { Badge } from '../../components/ui.js';
import { formatBytes, formatDate } from '../../lib/format.js';
import { canCancel, canRetry, isDone, stateText, stateTone, taskAction, TASK_TYPES, type Task } from './taskApi.js';
import { useTask } from './useTasks.js';

const typeLabel = (t: string) => TASK_TYPES.find((x) => x.id === t)?.label ?? t;

export function TaskItem({ task, onChanged, showType = true, removable = true }: { task: Task; onChanged: () => void; showType?: boolean; removable?: boolean }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const act = async (verb: 'cancel' | 'retry' | 'delete') => {
    setBusy(true);
    try {
      await taskAction(task.type, verb, task.id);
      toast.success(verb === 'cancel' ? 'Task canceled' : verb === 'retry' ? 'Task queued again' : 'Task removed');
      onChanged();
    } catch (e) {
      toast.error(e);
    } finally {
      setBusy(false);
    }
  };
  const pct = Math.max(0, Math.min(100, task.progress));
  const finished = isDone(task.state);
  const bytes = task.total_bytes > 0 ? `${formatBytes(task.done_bytes)} of ${formatBytes(task.total_bytes)}` : '';
  return (
    <li className="task-item" data-task={task.id} data-state={task.state} aria-label={task.name}>
      <div className="task-head">
        <div className="task-title">
          <span className="task-name">{task.name}</span>
          <span className="muted small">
            {showType && <>{typeLabel(task.type)} · </>}
            {task.creator && <>{task.creator} · </>}
            {task.start_time ? `started ${formatDate(task.start_time)}` : 'not started'}
            {task.end_time && ` · ended ${formatDate(task.end_time)}`}
          </span>
        </div>
        <Badge tone={stateTone(task.state)}>{stateText(task.state)}</Badge>
      </div>
      <progress
        className={`progress${task.state === 2 ? ' done' : task.state === 7 ? ' failed' : ''}`}
        max={100}
        value={pct}
        aria-label={`Progress of ${task.name}`}
        aria-valuetext={`${Math.round(pct)}%`}
      />
      <div className="task-meta">
        <span className="task-pct">{Math.round(pct)}%</span>
        {bytes && <span className="muted small">{bytes}</span>}
        {task.status && !finished && <span className="muted small">{task.status}</span>}
        <span className="task-actions">
          {canCancel(task.state) && (
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => void act('cancel')}>
              Cancel
            </button>
          )}
          {canRetry(task.state) && (
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => void act('retry')}>
              Retry
            </button>
          )}
          {finished && removable && (
            <button type="button" className="btn btn-small btn-ghost" disabled={busy} onClick={() => void act('delete')}>
              Remove
            </button>
          )}
        </span>
      </div>
      {task.error && <div className="task-error">{task.error}</div>}
    </li>
  );
}

export function TaskList({ tasks, onChanged, label, showType }: { tasks: Task[]; onChanged: () => void; label: string; showType?: boolean }) {
  return (
    <ul className="task-list" aria-label={label}>
      {tasks.map((t) => (
        <TaskItem key={t.id} task={t} onChanged={onChanged} showType={showType} />
      ))}
    </ul>
  );
}

/** One task that polls itself every second until it has finished. */
export function LiveTask({ task: initial }: { task: Task }) {
  const { task, refresh } = useTask(initial);
  return (
    <ul className="task-list" aria-label="Background task">
      <TaskItem task={task} onChanged={refresh} removable={false} />
    </ul>
  );
}
