/**
 * The wizard's file table: per file the hashes the drive already knows, whether the current
 * selection needs a download (and whether the storage can be streamed at all), and the
 * per-file choices — share link, direct link, comment.
 */
import { Badge } from '../../components/ui.js';
import { formatBytes } from '../../lib/format.js';
import type { HashMatrix } from '../../types.js';
import type { CapabilityFile } from './seedApi.js';
import { needsDownload, type FileChoice } from './wizardModel.js';

const MAX_ROWS = 500;

export function WizardFiles({
  files,
  matrix,
  choices,
  onChange,
}: {
  files: CapabilityFile[];
  matrix: HashMatrix;
  choices: Record<string, FileChoice>;
  onChange: (path: string, c: FileChoice) => void;
}) {
  const shown = files.slice(0, MAX_ROWS);
  const allShare = files.every((f) => choices[f.path]?.share);
  const allDirect = files.every((f) => choices[f.path]?.direct);
  const shareOk = files.some((f) => f.share_available);
  const directOk = files.some((f) => f.direct_source_available);
  const setAll = (key: 'share' | 'direct', on: boolean) => {
    for (const f of files) {
      const ok = key === 'share' ? f.share_available : f.direct_source_available;
      if (ok) onChange(f.path, { ...choices[f.path]!, [key]: on });
    }
  };
  return (
    <div className="table-wrap">
      <table className="table wizard-files">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col" className="num">
              Size
            </th>
            <th scope="col">Hashes</th>
            <th scope="col">
              <label className="th-check">
                <input type="checkbox" checked={allShare} disabled={!shareOk} onChange={(e) => setAll('share', e.target.checked)} aria-label="Share link for every file" />
                Share link
              </label>
            </th>
            <th scope="col">
              <label className="th-check">
                <input type="checkbox" checked={allDirect} disabled={!directOk} onChange={(e) => setAll('direct', e.target.checked)} aria-label="Direct link for every file" />
                Direct link
              </label>
            </th>
            <th scope="col">Comment</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((f) => {
            const c = choices[f.path]!;
            const dl = needsDownload(f, matrix);
            return (
              <tr key={f.path} data-file={f.path}>
                <td data-label="File">
                  <div className="wizard-file-name">{f.seed_path}</div>
                  <div className="small">
                    {dl ? (
                      f.streamable ? (
                        <Badge tone="warn">needs download</Badge>
                      ) : (
                        <Badge tone="bad">needs download · storage cannot stream</Badge>
                      )
                    ) : (
                      <Badge tone="ok">no download</Badge>
                    )}
                  </div>
                </td>
                <td className="num" data-label="Size">{formatBytes(f.size)}</td>
                <td className="small" data-label="Known hashes">{f.available_hashes.length > 0 ? f.available_hashes.join(', ') : <span className="muted">none known</span>}</td>
                <td data-label="Share link">
                  <input
                    type="checkbox"
                    aria-label={`Share link for ${f.seed_path}`}
                    checked={c.share}
                    disabled={!f.share_available}
                    title={f.share_available ? undefined : 'You may not create shares'}
                    onChange={(e) => onChange(f.path, { ...c, share: e.target.checked })}
                  />
                </td>
                <td data-label="Direct link">
                  <input
                    type="checkbox"
                    aria-label={`Direct link for ${f.seed_path}`}
                    checked={c.direct}
                    disabled={!f.direct_source_available}
                    title={f.direct_source_available ? undefined : 'Direct links cannot be recorded while sign_all is on'}
                    onChange={(e) => onChange(f.path, { ...c, direct: e.target.checked })}
                  />
                </td>
                <td data-label="Comment">
                  <input className="input input-compact" aria-label={`Comment for ${f.seed_path}`} value={c.comment} onChange={(e) => onChange(f.path, { ...c, comment: e.target.value })} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {files.length > MAX_ROWS && <p className="muted small table-note">Showing the first {MAX_ROWS} of {files.length} files; the link choices in the header apply to all.</p>}
    </div>
  );
}
