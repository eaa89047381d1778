/**
 * The wizard's file table: per file the hashes the drive already knows, whether the current
 * selection needs a download (and whether the storage can be streamed at all), and the
 * per-file choices — share link, direct link, comment.
 */
import { DataTable, type Column } from '../../components/DataTable.js';
import { Badge } from '../../components/ui.js';
import { formatBytes } from '../../lib/format.js';
import type { HashMatrix } from '../../types.js';
import type { CapabilityFile } from './seedApi.js';
import { needsDownload, type FileChoice } from './wizardModel.js';

const MAX_ROWS = 500;

type LinkKind = 'share' | 'direct';
const LINK: Record<LinkKind, { label: string; available: (f: CapabilityFile) => boolean; unavailable: string; hint?: string }> = {
  share: { label: 'Share link', available: (f) => f.share_available, unavailable: 'You may not create shares' },
  direct: {
    label: 'Direct link',
    available: (f) => f.direct_source_available,
    unavailable: 'Direct links cannot be recorded for this file',
    hint: 'Records a signed /d/ link that never expires: anyone holding the seed can download this file',
  },
};

/** One file's share- or direct-link checkbox. */
function LinkCell({ kind, file, choice, onChange }: { kind: LinkKind; file: CapabilityFile; choice: FileChoice; onChange: (c: FileChoice) => void }) {
  const { label, available, unavailable, hint } = LINK[kind];
  const ok = available(file);
  return (
    <td data-label={label}>
      <input
        type="checkbox"
        aria-label={`${label} for ${file.seed_path}`}
        checked={choice[kind]}
        disabled={!ok}
        title={ok ? hint : unavailable}
        onChange={(e) => onChange({ ...choice, [kind]: e.target.checked })}
      />
    </td>
  );
}

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
  /** The header checkbox that sets a link kind for every file that allows it. */
  const allColumn = (kind: LinkKind): Column => {
    const { label, available } = LINK[kind];
    const setAll = (on: boolean) => {
      for (const f of files) if (available(f)) onChange(f.path, { ...choices[f.path]!, [kind]: on });
    };
    return {
      label: (
        <label className="th-check">
          <input
            type="checkbox"
            checked={files.every((f) => choices[f.path]?.[kind])}
            disabled={!files.some(available)}
            onChange={(e) => setAll(e.target.checked)}
            aria-label={`${label} for every file`}
          />
          {label}
        </label>
      ),
    };
  };
  return (
    <DataTable
      className="wizard-files"
      columns={['File', { label: 'Size', className: 'num' }, 'Hashes', allColumn('share'), allColumn('direct'), 'Comment']}
      footer={files.length > MAX_ROWS && <p className="muted small table-note">Showing the first {MAX_ROWS} of {files.length} files; the link choices in the header apply to all.</p>}
    >
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
            <td className="num" data-label="Size">
              {formatBytes(f.size)}
            </td>
            <td className="small" data-label="Known hashes">
              {f.available_hashes.length > 0 ? f.available_hashes.join(', ') : <span className="muted">none known</span>}
            </td>
            <LinkCell kind="share" file={f} choice={c} onChange={(nc) => onChange(f.path, nc)} />
            <LinkCell kind="direct" file={f} choice={c} onChange={(nc) => onChange(f.path, nc)} />
            <td data-label="Comment">
              <input className="input input-compact" aria-label={`Comment for ${f.seed_path}`} value={c.comment} onChange={(e) => onChange(f.path, { ...c, comment: e.target.value })} />
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
