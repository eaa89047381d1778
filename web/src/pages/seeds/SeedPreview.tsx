/**
 * The unified preview of a stored `.oss`, `.torrent` or `.cas` (`/preview?path=…`): summary,
 * overall comment, trackers and channels, files (hashes, pieces, comments, times, sources),
 * conversion feasibility, and the operations with their per-file results. With
 * `seed_cas_direct_access`, a single-file `.cas` is rapid-uploaded into its folder and the
 * result previewed.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../api.js';
import { useDialogs } from '../../components/Dialogs.js';
import { useToast } from '../../components/Toast.js';
import { Badge, InlineError, PageHeader, Spinner } from '../../components/ui.js';
import { formatBytes, formatDate, isSeedFile, joinPath, parentPath } from '../../lib/format.js';
import { href, Link, useNavigate } from '../../router.js';
import { filesHref } from '../../routes.js';
import type { SeedFormat } from '../../types.js';
import { EditSeedDialog } from './EditSeedDialog.js';
import { FilePreview } from './FilePreview.js';
import { OpResults, outcomesOfSave, type OpReport } from './OpResults.js';
import { Conversions, Diagnostics } from './PreviewParts.js';
import { PreviewFiles } from './PreviewFiles.js';
import { PreviewOperations } from './PreviewOperations.js';
import { convertSeed, failureOf, parseSeed, saveFiles, updateSeed, type Preview, type PreviewFile, type UpdateEdits } from './seedApi.js';

export function SeedPreview({ path }: { path: string }) {
  const toast = useToast();
  const navigate = useNavigate();
  const { confirm } = useDialogs();
  const qc = useQueryClient();
  // The parsed seed, read once per opening (no cache: the file may change meanwhile); edits replace it.
  const seedKey = ['seed', 'preview', path] as const;
  const parsed = useQuery({ queryKey: seedKey, queryFn: () => parseSeed(path), enabled: !!path, staleTime: Infinity, gcTime: 0, retry: false });
  const preview = parsed.data ?? null;
  const setPreview = (p: Preview) => qc.setQueryData(seedKey, p);
  const error = !path ? { message: 'No seed file was given (open a .oss, .torrent or .cas file from the file list).' } : parsed.error ? failureOf(parsed.error) : null;
  const [reports, setReports] = useState<(OpReport & { id: number })[]>([]);
  const [editing, setEditing] = useState(false);
  const [showFile, setShowFile] = useState<string | null>(null);
  const [converting, setConverting] = useState<SeedFormat | null>(null);
  const nextId = useRef(1);
  const casOpenedFor = useRef<string | null>(null);

  const report = useCallback((r: OpReport) => setReports((xs) => [{ ...r, id: nextId.current++ }, ...xs].slice(0, 5)), []);

  useEffect(() => setReports([]), [path]);

  // seed_cas_direct_access: open the content of a single-file .cas right away.
  useEffect(() => {
    const d = preview?.direct_preview;
    if (!preview || !d?.cas_direct_access || casOpenedFor.current === path) return;
    casOpenedFor.current = path;
    if (d.action === 'preview_file' && d.stored_path) setShowFile(d.stored_path);
    else if (d.action === 'rapid_upload' && d.rapid_upload_to) {
      saveFiles('rapid_upload', path, preview.format, { dest: d.rapid_upload_to })
        .then((results) => {
          report({ title: 'Rapid upload (.cas direct access)', outcomes: outcomesOfSave(results) });
          const ok = results.find((r) => r.error === undefined && r.method === 'rapid_upload');
          if (ok) setShowFile(ok.target);
        })
        .catch((e) => toast.error(e));
    }
  }, [preview, path, report, toast]);

  if (error) {
    return (
      <section>
        <PageHeader title="Seed preview" subtitle={path} />
        <div className="card">
          <InlineError error={error.message} />
          {error.hint && <p className="hint-box">{error.hint}</p>}
          <Link to={filesHref(parentPath(path))}>Back to the folder</Link>
        </div>
      </section>
    );
  }
  if (!preview) return <Spinner label="Reading the seed…" />;

  const p = preview;
  const storedRoot = p.capabilities.recalculate.available ? p.capabilities.recalculate.path : undefined;

  const previewOne = (f: PreviewFile) => {
    const stored = storedRoot !== undefined ? joinPath(storedRoot, f.path) : p.files.length === 1 ? p.direct_preview.stored_path : null;
    if (stored) {
      if (isSeedFile(f.name)) navigate(href('/preview', { path: stored }));
      else setShowFile(stored);
      return;
    }
    const source = f.sources.find((s) => s.usable);
    if (source) window.open(source.url, '_blank', 'noopener');
    else toast.info(`${f.path} is not stored here and the seed has no usable link to it.`);
  };

  const update = async (edits: UpdateEdits) => {
    const r = await updateSeed(path, edits);
    setPreview(r);
    return r;
  };

  const remove = async (f: PreviewFile) => {
    const ok = await confirm({ title: `Remove “${f.path}” from the seed?`, message: 'The seed file is saved without it. The stored file itself is not touched.', confirmLabel: 'Remove', danger: true });
    if (!ok) return;
    try {
      const r = await update({ remove_files: [f.path] });
      report({ title: 'Remove file', outcomes: [{ path: f.path, ok: r.removed.includes(f.path), method: 'removed', detail: `removed from the seed; ${r.file_count} ${r.file_count === 1 ? 'file' : 'files'} left` }] });
    } catch (e) {
      report({ title: 'Remove file', outcomes: [{ path: f.path, ok: false, detail: errorMessage(e) }] });
    }
  };

  const saveEdits = async (edits: UpdateEdits) => {
    await update(edits);
    setEditing(false);
    const outcomes = [
      ...(edits.comment !== undefined || edits.trackers !== undefined
        ? [{ path: p.name, ok: true, method: 'seed', detail: [edits.comment !== undefined && 'comment updated', edits.trackers !== undefined && 'trackers updated'].filter(Boolean).join(', ') }]
        : []),
      ...(edits.files ?? []).map((f) => ({ path: f.path, ok: true, method: 'file', detail: [f.comment !== undefined && 'comment updated', f.sources !== undefined && 'sources updated'].filter(Boolean).join(', ') })),
    ];
    report({ title: 'Edit', outcomes });
  };

  const convert = async (f: SeedFormat) => {
    setConverting(f);
    try {
      const r = await convertSeed(path, f, parentPath(path));
      report({ title: `Convert to .${f}`, outcomes: [{ path: r.path ?? r.file_name, ok: true, method: `.${f}`, detail: `written (${formatBytes(r.size)})`, link: r.path ? { to: href('/preview', { path: r.path }), label: 'Open' } : undefined }] });
    } catch (e) {
      report({ title: `Convert to .${f}`, outcomes: [{ path: `${p.name}.${f}`, ok: false, detail: errorMessage(e) }] });
    } finally {
      setConverting(null);
    }
  };

  const dp = p.direct_preview;
  return (
    <section className="seed-preview" aria-label="Seed preview">
      <PageHeader
        title={p.name}
        subtitle={
          <>
            <Badge>.{p.format}</Badge> <span className="wrap-anywhere">{p.path}</span>
          </>
        }
        actions={
          <>
            {dp.enabled && dp.available && (dp.action === 'preview_file' && dp.stored_path ? (
              <button type="button" className="btn" onClick={() => setShowFile(dp.stored_path)}>
                Open the file
              </button>
            ) : dp.source_url ? (
              <a className="btn" href={dp.source_url} target="_blank" rel="noopener noreferrer">
                Open the file
              </a>
            ) : null)}
            <button type="button" className="btn" onClick={() => setEditing(true)} disabled={!p.capabilities.edit.available}>
              Edit
            </button>
            <Link className="btn btn-ghost" to={filesHref(parentPath(path))}>
              Back to folder
            </Link>
          </>
        }
      />
      {reports.map((r) => (
        <OpResults key={r.id} report={r} onDismiss={() => setReports((xs) => xs.filter((x) => x.id !== r.id))} />
      ))}
      <div className="preview-grid">
        <div className="card">
          <h2>Summary</h2>
          <dl className="kv">
            <dt>Files</dt>
            <dd>{p.file_count}</dd>
            <dt>Total size</dt>
            <dd>{formatBytes(p.total_size)}</dd>
            <dt>Piece size</dt>
            <dd>{formatBytes(p.piece_size)}</dd>
            {p.info_hash && (
              <>
                <dt>Info hash</dt>
                <dd className="mono wrap-anywhere">{p.info_hash}</dd>
              </>
            )}
            <dt>Created</dt>
            <dd>
              {formatDate(p.created_at)}
              {p.created_by && <span className="muted"> · {p.created_by}</span>}
            </dd>
          </dl>
          <h3>Comment</h3>
          {p.comment ? <p className="multiline seed-comment">{p.comment}</p> : <p className="muted small">No comment.</p>}
        </div>
        <div className="card">
          <h2>Trackers and channels</h2>
          <h3>Trackers</h3>
          {p.trackers.length ? (
            <ul className="plain-list">
              {p.trackers.map((t) => (
                <li key={t} className="mono wrap-anywhere">
                  {t}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">None.</p>
          )}
          <h3>Channels</h3>
          {p.channels.length ? (
            <ul className="plain-list">
              {p.channels.map((c, i) => (
                <li key={i}>
                  {c.driver}
                  {c.mount_path && <span className="muted"> at {c.mount_path}</span>}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">None.</p>
          )}
          {p.missing_channels.length > 0 && <p className="small">Missing on: {p.missing_channels.join(', ')}</p>}
        </div>
      </div>
      <div className="card">
        <div className="section-title">
          <h2>Files</h2>
          <span className="muted small">Open a row for its hashes, pieces and sources.</span>
        </div>
        <PreviewFiles files={p.files} canRemove={p.files.length > 1} onPreview={previewOne} onRemove={(f) => void remove(f)} />
        {p.torrent_pieces && (
          <p className="muted small">
            BitTorrent v1 pieces: {p.torrent_pieces.count} of {formatBytes(p.torrent_pieces.piece_size)}.
          </p>
        )}
      </div>
      <div className="card">
        <h2>Conversions</h2>
        <Conversions preview={p} busy={converting} onConvert={(f) => void convert(f)} />
        <Diagnostics items={p.diagnostics} />
      </div>
      {p.path && <PreviewOperations preview={p} onReport={report} onUpdated={setPreview} />}
      {editing && <EditSeedDialog preview={p} onClose={() => setEditing(false)} onSave={saveEdits} />}
      {showFile && <FilePreview path={showFile} onClose={() => setShowFile(null)} />}
    </section>
  );
}
