/** Per-file results of an operation on a seed (save operations, remove, recalculate, convert). */
import { DataTable } from '../../components/DataTable.js';
import { Badge } from '../../components/ui.js';
import { href, Link } from '../../router.js';
import type { SaveFileResult } from './seedApi.js';

export interface FileOutcome {
  path: string;
  ok: boolean;
  method?: string;
  detail?: string;
  /** Link to open (a written file's preview, the tasks page…). */
  link?: { to: string; label: string };
}

export interface OpReport {
  title: string;
  outcomes: FileOutcome[];
}

const METHOD: Record<SaveFileResult['method'], string> = {
  rapid_upload: 'rapid upload',
  offline_download: 'offline download',
  transfer: 'transfer',
  unavailable: 'unavailable',
};

export function outcomesOfSave(results: SaveFileResult[]): FileOutcome[] {
  return results.map((r) => {
    const ok = r.error === undefined && r.method !== 'unavailable';
    const queued = r.task !== undefined;
    return {
      path: r.path,
      ok,
      method: METHOD[r.method] ?? r.method,
      detail: r.error ?? (queued ? `queued as a task → ${r.target}` : `saved as ${r.target}`),
      link: queued ? { to: href('/tasks', { type: r.task!.type }), label: 'Follow in Tasks' } : undefined,
    };
  });
}

export function OpResults({ report, onDismiss }: { report: OpReport; onDismiss: () => void }) {
  const good = report.outcomes.filter((o) => o.ok).length;
  return (
    <section className="op-results card" aria-label={`${report.title} results`} aria-live="polite">
      <div className="section-title">
        <h2>{report.title}</h2>
        <span className="row">
          <Badge tone={good === report.outcomes.length ? 'ok' : good === 0 ? 'bad' : 'warn'}>
            {good} of {report.outcomes.length} {report.outcomes.length === 1 ? 'file' : 'files'} ok
          </Badge>
          <button type="button" className="btn btn-small btn-ghost" onClick={onDismiss}>
            Dismiss
          </button>
        </span>
      </div>
      <DataTable columns={['File', 'Result', 'Details']}>
        {report.outcomes.map((o, i) => (
          <tr key={`${o.path}-${i}`} data-result={o.path} data-ok={o.ok}>
            <td className="wrap-anywhere">{o.path}</td>
            <td>
              <Badge tone={o.ok ? 'ok' : 'bad'}>{o.ok ? 'ok' : 'failed'}</Badge> {o.method && <span className="muted small">{o.method}</span>}
            </td>
            <td className="wrap-anywhere">
              {o.detail}
              {o.link && (
                <>
                  {' '}
                  <Link to={o.link.to}>{o.link.label}</Link>
                </>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
