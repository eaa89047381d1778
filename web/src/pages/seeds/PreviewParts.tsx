/**
 * Small pieces of the seed preview: diagnostics, whole hashes, expandable per-piece lists,
 * sources with their status, conversion feasibility.
 */
import { Fragment, useState } from 'react';
import { Badge, CopyButton } from '../../components/ui.js';
import { formatBytes, formatDate } from '../../lib/format.js';
import type { SeedFormat } from '../../types.js';
import type { Diagnostic, Preview, PreviewFile, PreviewSource } from './seedApi.js';

const LEVEL_TONE = { error: 'bad', warning: 'warn', info: 'neutral' } as const;

export function Diagnostics({ items }: { items: Diagnostic[] }) {
  if (items.length === 0) return null;
  return (
    <div>
      <h3>Notes</h3>
      <ul className="diag-list">
        {items.map((d, i) => (
          <li key={i}>
            <Badge tone={LEVEL_TONE[d.level]}>{d.format ? `.${d.format} ${d.level}` : d.level}</Badge> {d.file && <span className="mono">{d.file}: </span>}
            {d.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

const HASH_ORDER = ['md5', 'sha1', 'sha256', 'gcid'] as const;

export function WholeHashes({ file }: { file: PreviewFile }) {
  const present = HASH_ORDER.filter((h) => file.hashes[h]);
  if (present.length === 0) return <p className="muted small">No whole-file hashes.</p>;
  return (
    <dl className="kv hash-kv">
      {present.map((h) => (
        <Fragment key={h}>
          <dt>{h}</dt>
          <dd>
            <code className="hash" data-hash={h}>
              {file.hashes[h]}
            </code>{' '}
            <CopyButton text={file.hashes[h]!} label={`Copy ${h}`} />
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** One algorithm's piece hashes, collapsed behind a toggle; long lists render in pages of 200. */
export function PieceList({ label, hashes, pieceSize, size }: { label: string; hashes: string[]; pieceSize: number; size?: number }) {
  const [open, setOpen] = useState(false);
  const [limit, setLimit] = useState(200);
  const end = (i: number) => (size === undefined ? (i + 1) * pieceSize : Math.min((i + 1) * pieceSize, size));
  return (
    <div className="piece-list">
      <button type="button" className="btn btn-small btn-ghost" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} {label}: {hashes.length} {hashes.length === 1 ? 'piece' : 'pieces'}
      </button>
      {open && (
        <>
          <ol className="pieces" aria-label={`${label} pieces`}>
            {hashes.slice(0, limit).map((h, i) => (
              <li key={i}>
                <span className="muted small piece-range">
                  #{i} · {formatBytes(i * pieceSize)}–{formatBytes(end(i))}
                </span>{' '}
                <code className="hash">{h}</code>
              </li>
            ))}
          </ol>
          {hashes.length > limit && (
            <button type="button" className="btn btn-small" onClick={() => setLimit(limit + 1000)}>
              Show more ({hashes.length - limit} left)
            </button>
          )}
        </>
      )}
    </div>
  );
}

export function FilePieces({ file }: { file: PreviewFile }) {
  const algos = (['md5', 'sha1', 'sha256'] as const).filter((a) => file.pieces[a]?.length);
  if (algos.length === 0) return <p className="muted small">No per-piece hashes ({file.pieces.count} pieces of {formatBytes(file.pieces.piece_size)}).</p>;
  return (
    <div>
      {algos.map((a) => (
        <PieceList key={a} label={a} hashes={file.pieces[a]!} pieceSize={file.pieces.piece_size} size={file.size} />
      ))}
    </div>
  );
}

export function SourceList({ sources }: { sources: PreviewSource[] }) {
  if (sources.length === 0) return <p className="muted small">No sources.</p>;
  return (
    <ul className="source-list">
      {sources.map((s, i) => (
        <li key={i}>
          <Badge tone={s.usable ? 'ok' : 'bad'}>{s.usable ? 'usable' : 'not usable'}</Badge> <span className="muted small">{s.type === 'openlist-share' ? 'share' : s.type === 'openlist-direct' ? 'direct' : s.type}</span>{' '}
          <a href={s.url} target="_blank" rel="noopener noreferrer" className="mono wrap-anywhere">
            {s.url}
          </a>
          {s.expires_at && <span className="muted small"> · expires {formatDate(s.expires ?? s.expires_at)}</span>}
          {s.reason && <div className="small muted">{s.reason}</div>}
        </li>
      ))}
    </ul>
  );
}

const FORMAT_LABEL: Record<SeedFormat, string> = { oss: '.oss', torrent: '.torrent', cas: '.cas' };

export function Conversions({ preview, busy, onConvert }: { preview: Preview; busy: SeedFormat | null; onConvert: (f: SeedFormat) => void }) {
  return (
    <ul className="conversions">
      {(['oss', 'torrent', 'cas'] as const).map((f) => {
        const c = preview.conversions[f];
        const own = f === preview.format;
        return (
          <li key={f} data-format={f}>
            <div className="row">
              <strong>{FORMAT_LABEL[f]}</strong>
              {own ? <Badge>this seed</Badge> : c.feasible ? <Badge tone="ok">can convert</Badge> : <Badge tone="bad">cannot convert</Badge>}
              {!own && c.feasible && preview.path && (
                <button type="button" className="btn btn-small" disabled={busy !== null} onClick={() => onConvert(f)}>
                  {busy === f ? 'Converting…' : `Convert to ${FORMAT_LABEL[f]}`}
                </button>
              )}
            </div>
            {c.missing.length > 0 && (
              <ul className="missing-list" aria-label={`Missing for ${FORMAT_LABEL[f]}`}>
                {c.missing.slice(0, 20).map((m, i) => (
                  <li key={i}>
                    <span className="mono">{m.file}</span>: {m.reason}
                  </li>
                ))}
                {c.missing.length > 20 && <li className="muted">… and {c.missing.length - 20} more files</li>}
              </ul>
            )}
          </li>
        );
      })}
    </ul>
  );
}
