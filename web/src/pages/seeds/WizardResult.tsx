/** What the wizard made: the written seed files (each opens its preview), per-file modes, diagnostics; or the live background task. */
import { DataTable, type Column } from '../../components/DataTable.js';
import { Badge } from '../../components/ui.js';
import { formatBytes } from '../../lib/format.js';
import { href, Link } from '../../router.js';
import { LiveTask } from '../tasks/TaskList.js';
import { Diagnostics } from './PreviewParts.js';
import type { GenerateResult } from './seedApi.js';

const COLUMNS: Column[] = ['File', { label: 'Size', className: 'num' }, 'Hashed by'];

export function WizardResult({ result, onClose }: { result: GenerateResult; onClose: () => void }) {
  if ('async' in result) {
    return (
      <div className="card stack" role="status">
        <h2>Seed queued as a background task</h2>
        <p className="muted">The files are hashed in the background; the seed files appear in the output folder when the task is done.</p>
        <LiveTask task={result.task} />
        <div className="row">
          <Link className="btn btn-primary" to={href('/tasks', { type: 'seed_generate' })}>
            Open tasks
          </Link>
          <button type="button" className="btn" onClick={onClose}>
            Back to files
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="card stack" role="status">
      <h2>Seed created</h2>
      <ul className="artifact-list" aria-label="Seed files">
        {result.artifacts.map((a) => (
          <li key={a.path}>
            <Link to={href('/preview', { path: a.path })}>{a.path}</Link> <span className="muted small">{formatBytes(a.size)}</span>
          </li>
        ))}
      </ul>
      <DataTable columns={COLUMNS}>
        {result.files.map((f) => (
          <tr key={f.path}>
            <td className="wrap-anywhere">{f.path}</td>
            <td className="num">{formatBytes(f.size)}</td>
            <td>{f.mode === 'direct' ? <Badge tone="ok">drive hashes (no read)</Badge> : <Badge tone="warn">downloaded once</Badge>}</td>
          </tr>
        ))}
      </DataTable>
      <Diagnostics items={result.diagnostics} />
      <div className="row">
        <button type="button" className="btn btn-primary" onClick={onClose}>
          Back to files
        </button>
      </div>
    </div>
  );
}
