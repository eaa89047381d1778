/**
 * One file of a folder, shown by its kind (images, video and audio, text and code, Markdown, PDF;
 * anything else: details and download), for signed-in users (`/view/…`, ViewerPage) and share
 * visitors (`/s/<id>/…?view=1`, SharePage). ←/→ step through the folder's files of the same kind,
 * Esc goes back to the folder. Files come from their links (`/d/` or `/sd/`); the server sandboxes
 * every file response, so nothing a file holds runs here.
 */
import { useEffect, useMemo, type ReactNode } from 'react';
import { InlineError, PageHeader, Spinner } from '../../components/ui.js';
import { formatBytes, formatDate } from '../../lib/format.js';
import { sniffedKind, viewKind, type ViewKind } from '../../lib/fileKinds.js';
import { Link, useNavigate } from '../../router.js';
import type { Obj } from '../../types.js';
import { ImageView, MediaView, PdfView } from './MediaViews.js';
import MarkdownView from './MarkdownView.js';
import { TextView } from './TextViews.js';
import './viewer.css';

export interface FileViewerProps {
  /** The file's name in its folder. */
  name: string;
  /** The folder's entries (undefined while loading). */
  items: Obj[] | undefined;
  error: string | null;
  /** The link of a file of this folder (stable: useCallback). */
  urlOf: (o: Obj) => string;
  /** The viewer URL of another file of this folder. */
  viewHrefOf: (name: string) => string;
  back: { href: string; label: string };
  /** Where saving an edited text file goes (`PUT /api/fs/put`), when the viewer may write. */
  editPath?: string;
  /** The MIME type the file's bytes show (`fs/get`), when known: it overrules a lying extension. */
  contentType?: string;
}

export function FileViewer({ name, items, error, urlOf, viewHrefOf, back, editPath, contentType }: FileViewerProps) {
  const navigate = useNavigate();
  const obj = items?.find((o) => o.name === name && !o.is_dir);
  const kind: ViewKind = sniffedKind(contentType, name) ?? viewKind(name);
  const siblings = useMemo(
    () =>
      (items ?? [])
        .filter((o) => !o.is_dir && viewKind(o.name) === kind)
        .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' })),
    [items, kind],
  );
  const at = siblings.findIndex((o) => o.name === name);
  const prev = at > 0 ? siblings[at - 1] : undefined;
  const next = at >= 0 && at < siblings.length - 1 ? siblings[at + 1] : undefined;
  const go = (o: Obj | undefined) => o && navigate(viewHrefOf(o.name), { replace: true });

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || (t && /^(INPUT|TEXTAREA|SELECT|VIDEO|AUDIO)$/.test(t.tagName))) return;
      if (e.key === 'ArrowLeft') go(prev);
      else if (e.key === 'ArrowRight') go(next);
      else if (e.key === 'Escape') navigate(back.href);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if (error) return <ViewerFrame name={name} back={back}><div className="card"><InlineError error={error} /></div></ViewerFrame>;
  if (!items) return <ViewerFrame name={name} back={back}><Spinner /></ViewerFrame>;
  if (!obj) return <ViewerFrame name={name} back={back}><div className="card"><InlineError error={`${name} is not in this folder (any more).`} /></div></ViewerFrame>;

  const url = urlOf(obj);
  const actions = (
    <>
      {siblings.length > 1 && (
        <>
          <button type="button" className="btn btn-small" disabled={!prev} onClick={() => go(prev)} aria-label="Previous file">
            ← Previous
          </button>
          <span className="viewer-count">
            {at + 1} / {siblings.length}
          </span>
          <button type="button" className="btn btn-small" disabled={!next} onClick={() => go(next)} aria-label="Next file">
            Next →
          </button>
        </>
      )}
      <a className="btn btn-small btn-primary" href={url} download={obj.name}>
        Download
      </a>
    </>
  );
  return (
    <ViewerFrame name={name} back={back} actions={actions}>
      <div className={`viewer viewer-${kind}`} data-kind={kind}>
        {kind === 'image' && <ImageView key={url} url={url} name={obj.name} />}
        {(kind === 'video' || kind === 'audio') && <MediaView key={url} kind={kind} url={url} obj={obj} siblings={items} urlOf={urlOf} />}
        {kind === 'pdf' && <PdfView url={url} name={obj.name} />}
        {kind === 'text' && <TextView key={url} url={url} obj={obj} editPath={editPath} />}
        {kind === 'markdown' && <MarkdownView key={url} url={url} size={obj.size} />}
        {(kind === 'other' || kind === 'seed') && <Details obj={obj} />}
      </div>
    </ViewerFrame>
  );
}

function ViewerFrame({ name, back, actions, children }: { name: string; back: FileViewerProps['back']; actions?: ReactNode; children: ReactNode }) {
  return (
    <section aria-label={`View ${name}`}>
      <PageHeader title={name} subtitle={<Link to={back.href}>← Back to {back.label}</Link>} actions={actions} />
      {children}
    </section>
  );
}

function Details({ obj }: { obj: Obj }) {
  return (
    <div className="card">
      <p>This file cannot be shown here. Download it to open it.</p>
      <dl className="viewer-details">
        <dt>Size</dt>
        <dd>{formatBytes(obj.size)}</dd>
        <dt>Modified</dt>
        <dd>{formatDate(obj.modified)}</dd>
      </dl>
    </div>
  );
}
