/**
 * The seed's files: size, modification time, comment, sources; each row expands to its
 * whole hashes, per-piece lists, sources with status, missing channels and CAS data.
 * Per file: preview it, remove it from the seed.
 */
import { Fragment, useState } from 'react';
import { ACTIONS, DataTable, RowActions, RowButton, type Column } from '../../components/DataTable.js';
import { Badge } from '../../components/ui.js';
import { formatBytes, formatDate } from '../../lib/format.js';
import { FilePieces, SourceList, WholeHashes } from './PreviewParts.js';
import type { PreviewFile } from './seedApi.js';

const PAGE = 200;
const COLUMNS: Column[] = ['File', { label: 'Size', className: 'num' }, { label: 'Modified', className: 'hide-sm' }, { label: 'Sources', className: 'hide-sm' }, ACTIONS];

function SourcesSummary({ f }: { f: PreviewFile }) {
  if (f.sources.length === 0) return <span className="muted small">none</span>;
  const usable = f.sources.filter((s) => s.usable).length;
  return <Badge tone={usable > 0 ? 'ok' : 'bad'}>{`${usable}/${f.sources.length} usable`}</Badge>;
}

function Details({ f }: { f: PreviewFile }) {
  return (
    <div className="file-details grid-2">
      <div>
        <h4>Whole-file hashes</h4>
        <WholeHashes file={f} />
        <h4>Per-piece hashes</h4>
        <p className="muted small">
          {f.pieces.count} {f.pieces.count === 1 ? 'piece' : 'pieces'} of {formatBytes(f.pieces.piece_size)}
        </p>
        <FilePieces file={f} />
      </div>
      <div>
        <h4>Comment</h4>
        {f.comment ? <p className="multiline">{f.comment}</p> : <p className="muted small">No comment.</p>}
        <h4>Modified</h4>
        <p>{f.modified ? formatDate(f.modified) : <span className="muted small">not recorded</span>}</p>
        <h4>Sources</h4>
        <SourceList sources={f.sources} />
        {f.missing_channels.length > 0 && (
          <>
            <h4>Missing on channels</h4>
            <p>{f.missing_channels.join(', ')}</p>
          </>
        )}
        {f.cas && (
          <>
            <h4>CAS</h4>
            <dl className="kv small">
              {f.cas.slice_md5 && (
                <>
                  <dt>slice MD5</dt>
                  <dd className="mono">{f.cas.slice_md5}</dd>
                </>
              )}
              {f.cas.create_time && (
                <>
                  <dt>created</dt>
                  <dd>{formatDate(new Date(Number(f.cas.create_time) * 1000).toISOString())}</dd>
                </>
              )}
              {f.cas.cloud && (
                <>
                  <dt>cloud</dt>
                  <dd>{f.cas.cloud}</dd>
                </>
              )}
            </dl>
          </>
        )}
      </div>
    </div>
  );
}

export function PreviewFiles({
  files,
  canRemove,
  onPreview,
  onRemove,
}: {
  files: PreviewFile[];
  canRemove: boolean;
  onPreview: (f: PreviewFile) => void;
  onRemove: (f: PreviewFile) => void;
}) {
  const [open, setOpen] = useState<Set<string>>(() => new Set(files.length === 1 ? [files[0]!.path] : []));
  const [limit, setLimit] = useState(PAGE);
  const toggle = (p: string) => {
    const next = new Set(open);
    if (next.has(p)) next.delete(p);
    else next.add(p);
    setOpen(next);
  };
  return (
    <DataTable
      className="seed-files"
      columns={COLUMNS}
      footer={
        files.length > limit && (
          <p className="table-note">
            <button type="button" className="btn btn-small" onClick={() => setLimit(limit + PAGE * 5)}>
              Show more files ({files.length - limit} left)
            </button>
          </p>
        )
      }
    >
      {files.slice(0, limit).map((f) => {
        const expanded = open.has(f.path);
        const detailsId = `file-details-${encodeURIComponent(f.path)}`;
        return (
          <Fragment key={f.path}>
            <tr data-file={f.path}>
              <td>
                <button type="button" className="link-btn file-toggle" aria-expanded={expanded} aria-controls={detailsId} onClick={() => toggle(f.path)}>
                  <span aria-hidden="true">{expanded ? '▾' : '▸'}</span> <span className="wrap-anywhere">{f.path}</span>
                </button>
                {f.comment && <div className="muted small clamp-1">{f.comment}</div>}
              </td>
              <td className="num">{formatBytes(f.size)}</td>
              <td className="nowrap hide-sm">{f.modified ? formatDate(f.modified) : '—'}</td>
              <td className="hide-sm">
                <SourcesSummary f={f} />
              </td>
              <RowActions>
                <RowButton label="Preview" name={`Preview ${f.path}`} onClick={() => onPreview(f)} />
                <RowButton
                  label="Remove"
                  name={`Remove ${f.path} from the seed`}
                  tone="ghost"
                  disabled={!canRemove}
                  title={canRemove ? undefined : 'A seed keeps at least one file'}
                  onClick={() => onRemove(f)}
                />
              </RowActions>
            </tr>
            {expanded && (
              <tr className="details-row" id={detailsId}>
                <td colSpan={5}>
                  <Details f={f} />
                </td>
              </tr>
            )}
          </Fragment>
        );
      })}
    </DataTable>
  );
}
