/**
 * `/view/<path>`: one file, shown by its kind (images, video and audio, text and code, Markdown, PDF;
 * anything else: details and download). ←/→ step through the folder's files of the same kind, Esc goes
 * back to the folder. Files come from their signed `/d/` links; the server sandboxes every file
 * response, so nothing a file holds runs here.
 */
import { useEffect, useMemo, useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { InlineError, PageHeader, Spinner } from '../../components/ui.js';
import { baseName, downloadHref, formatBytes, formatDate, parentPath } from '../../lib/format.js';
import { viewKind, type ViewKind } from '../../lib/fileKinds.js';
import { href, Link, navigate } from '../../router.js';
import { filesHref, viewHref } from '../../routes.js';
import { useSession } from '../../session.js';
import type { FsList, Obj } from '../../types.js';
import { ImageView, MediaView, PdfView } from './MediaViews.js';
import MarkdownView from './MarkdownView.js';
import { TextView } from './TextViews.js';
import './viewer.css';

export default function ViewerPage({ path }: { path: string }) {
  const me = useSession().me!;
  const dir = parentPath(path);
  const name = baseName(path);
  const [list, setList] = useState<FsList | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.post<FsList>('/api/fs/list', { path: dir }).then(
      (l) => live && setList(l),
      (e) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [dir]);

  const obj = list?.content.find((o) => o.name === name && !o.is_dir);
  const kind: ViewKind = viewKind(name);
  const siblings = useMemo(
    () =>
      (list?.content ?? [])
        .filter((o) => !o.is_dir && viewKind(o.name) === kind)
        .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' })),
    [list, kind],
  );
  const at = siblings.findIndex((o) => o.name === name);
  const prev = at > 0 ? siblings[at - 1] : undefined;
  const next = at >= 0 && at < siblings.length - 1 ? siblings[at + 1] : undefined;
  const go = (o: Obj | undefined) => o && navigate(viewHref(dir === '/' ? `/${o.name}` : `${dir}/${o.name}`), { replace: true });

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || (t && /^(INPUT|TEXTAREA|SELECT|VIDEO|AUDIO)$/.test(t.tagName))) return;
      if (e.key === 'ArrowLeft') go(prev);
      else if (e.key === 'ArrowRight') go(next);
      else if (e.key === 'Escape') navigate(filesHref(dir));
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if (kind === 'seed') {
    navigate(href('/preview', { path }), { replace: true });
    return null;
  }
  if (error) return <ViewerFrame dir={dir} name={name}><div className="card"><InlineError error={error} /></div></ViewerFrame>;
  if (!list) return <ViewerFrame dir={dir} name={name}><Spinner /></ViewerFrame>;
  if (!obj) return <ViewerFrame dir={dir} name={name}><div className="card"><InlineError error={`${name} is not in this folder (any more).`} /></div></ViewerFrame>;

  const url = downloadHref(me.base_path, dir, obj);
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
    <ViewerFrame dir={dir} name={name} actions={actions}>
      <div className={`viewer viewer-${kind}`} data-kind={kind}>
        {kind === 'image' && <ImageView key={url} url={url} name={obj.name} />}
        {(kind === 'video' || kind === 'audio') && <MediaView key={url} kind={kind} url={url} obj={obj} siblings={list.content} baseDir={dir} basePath={me.base_path} />}
        {kind === 'pdf' && <PdfView url={url} name={obj.name} />}
        {kind === 'text' && <TextView key={url} url={url} obj={obj} />}
        {kind === 'markdown' && <MarkdownView key={url} url={url} size={obj.size} />}
        {kind === 'other' && <Details obj={obj} />}
      </div>
    </ViewerFrame>
  );
}

function ViewerFrame({ dir, name, actions, children }: { dir: string; name: string; actions?: React.ReactNode; children: React.ReactNode }) {
  return (
    <section aria-label={`View ${name}`}>
      <PageHeader title={name} subtitle={<Link to={filesHref(dir)}>← Back to {dir === '/' ? 'the root folder' : baseName(dir)}</Link>} actions={actions} />
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
