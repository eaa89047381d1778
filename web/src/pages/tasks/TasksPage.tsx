/**
 * The tasks panel (`/tasks`, `?type=` filters): unfinished tasks with live progress (polled
 * every second while the page is open), finished ones below; cancel, retry, remove, clear.
 */
import { useMemo } from 'react';
import { useToast } from '../../components/Toast.js';
import { EmptyState, InlineError, PageHeader, Spinner } from '../../components/ui.js';
import { href, Link } from '../../router.js';
import { clearDone, TASK_TYPES, type TaskType } from './taskApi.js';
import { TaskList } from './TaskList.js';
import { useTaskLists } from './useTasks.js';
import '../seeds/seeds.css';

const ALL = TASK_TYPES.map((t) => t.id);

export function TasksPage({ type }: { type: string }) {
  const toast = useToast();
  const selected = TASK_TYPES.find((t) => t.id === type)?.id;
  const types = useMemo<readonly TaskType[]>(() => (selected ? [selected] : ALL), [selected]);
  const { undone, done, loaded, error, refresh } = useTaskLists(types);

  const clear = async () => {
    try {
      const kinds = [...new Set(done.map((t) => t.type))];
      await Promise.all(kinds.map((k) => clearDone(k)));
      toast.success('Finished tasks cleared');
      refresh();
    } catch (e) {
      toast.error(e);
    }
  };

  const tabs = [{ id: '', label: 'All' }, ...TASK_TYPES];
  return (
    <section aria-labelledby="tasks-title">
      <PageHeader title={<span id="tasks-title">Tasks</span>} subtitle="Background work: seed generation, uploads, copies, moves and downloads. Updates every second." />
      <nav className="tabs" aria-label="Task type">
        {tabs.map((t) => (
          <Link key={t.id} className="tab" to={href('/tasks', { type: t.id || undefined })} aria-current={(selected ?? '') === t.id ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      <InlineError error={error} />
      {!loaded && !error ? (
        <Spinner />
      ) : (
        <>
          <div className="card">
            <div className="section-title">
              <h2>Running and queued</h2>
              <span className="muted small" aria-live="polite">
                {undone.length === 0 ? 'Nothing running' : `${undone.length} active`}
              </span>
            </div>
            {undone.length === 0 ? <EmptyState title="No active tasks" /> : <TaskList tasks={undone} onChanged={refresh} label="Active tasks" showType={!selected} />}
          </div>
          <div className="card">
            <div className="section-title">
              <h2>Finished</h2>
              {done.length > 0 && (
                <button type="button" className="btn btn-small" onClick={() => void clear()}>
                  Clear finished
                </button>
              )}
            </div>
            {done.length === 0 ? <EmptyState title="No finished tasks" /> : <TaskList tasks={done} onChanged={refresh} label="Finished tasks" showType={!selected} />}
          </div>
        </>
      )}
    </section>
  );
}
