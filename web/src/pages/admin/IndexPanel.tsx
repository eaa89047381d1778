/** Admin settings: the search index's state (objects, running or not, last run, error) and its build/update/clear buttons. */
import { api } from '../../api.js';
import { useDialogs } from '../../components/Dialogs.js';
import { useToastAction } from '../../components/hooks.js';
import { Badge, InlineError } from '../../components/ui.js';
import { formatDate } from '../../lib/format.js';
import { queryKeys, useServerData } from '../../lib/queries.js';
import type { IndexProgress } from '../../types.js';

const fetchProgress = () => api.get<IndexProgress>('/api/admin/index/progress');

export function IndexPanel() {
  const { confirm } = useDialogs();
  // While a build or update runs, poll its progress every second.
  const { data, error, reload } = useServerData(queryKeys.indexProgress, fetchProgress, { refetchInterval: (d) => (d && !d.is_done ? 1000 : false) });
  const act = useToastAction(reload);

  const clear = async () => {
    if (!(await confirm({ title: 'Clear the search index?', message: 'Search finds nothing until the index is built again.', confirmLabel: 'Clear', danger: true }))) return;
    await act(() => api.post('/api/admin/index/clear'), 'Search index cleared');
  };

  return (
    <section className="card" aria-labelledby="index-status">
      <h2 id="index-status">Search index</h2>
      <InlineError error={error} />
      {data && (
        <p data-testid="index-status">
          {data.is_done ? <Badge tone="ok">idle</Badge> : <Badge tone="warn">running</Badge>} <span>{data.obj_count} objects indexed</span>
          {data.last_done_time && <span className="muted"> · last run ended {formatDate(data.last_done_time)}</span>}
          {data.error && <span className="error"> · last error: {data.error}</span>}
        </p>
      )}
      <div className="actions">
        <button type="button" className="btn" onClick={() => void act(() => api.post('/api/admin/index/build', {}), 'Index build started')}>
          Build index
        </button>{' '}
        <button type="button" className="btn" onClick={() => void act(() => api.post('/api/admin/index/update', {}), 'Index update started')}>
          Update index
        </button>{' '}
        {data && !data.is_done && (
          <button type="button" className="btn" onClick={() => void act(() => api.post('/api/admin/index/stop'), 'Index task stopped')}>
            Stop
          </button>
        )}{' '}
        <button type="button" className="btn btn-danger" onClick={() => void clear()}>
          Clear index
        </button>
      </div>
    </section>
  );
}
