/**
 * The file browser: breadcrumb, sortable listing with selection, folder/file actions,
 * uploads (buttons, folder picker, drag and drop) with sidecar options and per-file progress.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { api, errorMessage } from '../../api.js';
import { useDialogs } from '../../components/Dialogs.js';
import { useToastAction } from '../../components/hooks.js';
import { useToast } from '../../components/Toast.js';
import { EmptyState, InlineError, PageHeader, Spinner } from '../../components/ui.js';
import { downloadHref, isSeedFile, joinPath, nameProblem, parentPath } from '../../lib/format.js';
import { can, Perm } from '../../lib/permissions.js';
import { href, Link, useNavigate } from '../../router.js';
import { filesHref, viewHref } from '../../routes.js';
import { useSession } from '../../session.js';
import { invalidateFolder, useFolder } from '../../lib/queries.js';
import type { Obj, SeedFormat } from '../../types.js';
import { Breadcrumb } from './Breadcrumb.js';
import { FileGrid } from './FileGrid.js';
import { FileTable, sortObjs, type Sort } from './FileTable.js';
import { OfflineDownloadDialog } from './OfflineDownloadDialog.js';
import { SearchBox } from './SearchBox.js';
import { parseMatrix } from './SeedOptions.js';
import { ShareDialog } from './ShareDialog.js';
import { TransferDialog } from './TransferDialog.js';
import { UploadList, UploadOptionsPanel, type UploadOptions } from './UploadPanel.js';
import { fromDataTransfer, fromFileList, type PickedFile } from './uploads.js';
import { useUploads } from './useUploads.js';
import { FolderReadme } from '../view/FolderReadme.js';
import '../view/viewer.css';

function defaultFormats(settings: Record<string, string>): SeedFormat[] {
  try {
    const p = JSON.parse(settings.seed_format_policies ?? '{}') as Record<string, string>;
    const on = (['oss', 'torrent', 'cas'] as const).filter((f) => p[f] === 'on');
    if (on.length) return [...on];
  } catch {
    // fall through
  }
  const d = settings.seed_default_format;
  return d === 'torrent' || d === 'cas' ? [d] : ['oss'];
}


type FilesView = 'list' | 'grid';
const VIEW_KEY = 'ferry.filesView';
function savedView(): FilesView {
  try {
    return localStorage.getItem(VIEW_KEY) === 'grid' ? 'grid' : 'list';
  } catch {
    return 'list';
  }
}

type DialogState = { kind: 'share'; names: string[] } | { kind: 'move' | 'copy'; names: string[] } | { kind: 'offline' } | null;

export function FilesPage({ path }: { path: string }) {
  const session = useSession();
  const toast = useToast();
  const { confirm, prompt } = useDialogs();
  const me = session.me!;
  const navigate = useNavigate();
  const qc = useQueryClient();
  const folder = useFolder(path);
  const list = folder.data;
  const error = folder.error ? errorMessage(folder.error) : null;
  const [sort, setSort] = useState<Sort>({ key: 'name', dir: 1 });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<DialogState>(null);
  const [showOptions, setShowOptions] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [view, setView] = useState<FilesView>(savedView);
  const chooseView = (v: FilesView) => {
    setView(v);
    try {
      localStorage.setItem(VIEW_KEY, v);
    } catch {
      // private mode: the choice lasts for this page only
    }
  };
  const dragDepth = useRef(0);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [options, setOptions] = useState<UploadOptions>(() => ({
    overwrite: false,
    sidecars: false,
    formats: defaultFormats(session.settings),
    matrix: parseMatrix(session.settings.seed_default_matrix),
    pieceSize: null,
  }));

  // Public settings may arrive after the first render: take their defaults until the user changes anything.
  const touched = useRef(false);
  useEffect(() => {
    if (touched.current) return;
    setOptions((o) => ({ ...o, formats: defaultFormats(session.settings), matrix: parseMatrix(session.settings.seed_default_matrix) }));
  }, [session.settings]);

  const load = useCallback(() => invalidateFolder(qc, path), [qc, path]);

  useEffect(() => setSelected(new Set()), [path]);

  // Reload (debounced) when an upload into this folder finishes.
  const reloadTimer = useRef<number | undefined>(undefined);
  const pathRef = useRef(path);
  pathRef.current = path;
  const uploads = useUploads((target) => {
    if (!target.startsWith(pathRef.current === '/' ? '/' : pathRef.current + '/')) return;
    window.clearTimeout(reloadTimer.current);
    reloadTimer.current = window.setTimeout(() => void invalidateFolder(qc, pathRef.current), 250);
  });

  const items = useMemo(() => sortObjs(list?.content ?? [], sort), [list, sort]);
  const selectedNames = items.filter((o) => selected.has(o.name)).map((o) => o.name);
  const single = selectedNames.length === 1 ? items.find((o) => o.name === selectedNames[0]) : undefined;
  const canWrite = list?.write ?? can(me, Perm.WRITE);

  const fullPath = (name: string) => joinPath(path, name);
  const downloadUrl = (o: Obj) => downloadHref(me.base_path, path, o);

  const open = (o: Obj) => {
    if (o.is_dir) navigate(filesHref(fullPath(o.name)));
    else if (isSeedFile(o.name)) navigate(href('/preview', { path: fullPath(o.name) }));
    else navigate(viewHref(fullPath(o.name)));
  };

  const startUploads = (files: PickedFile[]) => {
    if (files.length === 0) return;
    if (options.sidecars && options.formats.length === 0) {
      toast.error('Choose at least one sidecar format, or turn sidecars off.');
      setShowOptions(true);
      return;
    }
    uploads.enqueue(files, path, {
      overwrite: options.overwrite,
      sidecars: options.sidecars ? { formats: options.formats, matrix: options.matrix, pieceSize: options.pieceSize } : null,
    });
  };

  const run = useToastAction(() => {
    setSelected(new Set());
    return load();
  });

  const mkdir = async () => {
    const name = await prompt({ title: 'New folder', label: 'Folder name', confirmLabel: 'Create', validate: (v) => nameProblem(v.trim()) });
    if (name === null) return;
    await run(() => api.post('/api/fs/mkdir', { path: fullPath(name.trim()) }), `Created “${name.trim()}”`);
  };

  const rename = async (o: Obj) => {
    const name = await prompt({
      title: `Rename “${o.name}”`,
      label: 'New name',
      initial: o.name,
      confirmLabel: 'Rename',
      validate: (v) => nameProblem(v) ?? (items.some((x) => x.name === v && x.name !== o.name) ? 'Something with this name is already here.' : null),
    });
    if (name === null || name === o.name) return;
    await run(() => api.post('/api/fs/rename', { path: fullPath(o.name), name }), `Renamed to “${name}”`);
  };

  const remove = async (names: string[]) => {
    const ok = await confirm({
      title: names.length === 1 ? `Delete “${names[0]}”?` : `Delete ${names.length} items?`,
      message: (
        <>
          <p>This cannot be undone. Folders are deleted with everything inside.</p>
          {names.length > 1 && (
            <ul>
              {names.slice(0, 8).map((n) => (
                <li key={n}>{n}</li>
              ))}
              {names.length > 8 && <li>… and {names.length - 8} more</li>}
            </ul>
          )}
        </>
      ),
      confirmLabel: 'Delete',
      danger: true,
    });
    if (!ok) return;
    await run(() => api.post('/api/fs/remove', { dir: path, names }), names.length === 1 ? `Deleted “${names[0]}”` : `Deleted ${names.length} items`);
  };

  const onDrag = (e: DragEvent) => {
    if (!Array.from(e.dataTransfer.types).includes('Files')) return;
    e.preventDefault();
    if (e.type === 'dragenter') dragDepth.current++;
    if (e.type === 'dragleave') dragDepth.current--;
    if (e.type === 'dragover') e.dataTransfer.dropEffect = canWrite ? 'copy' : 'none';
    setDragging(dragDepth.current > 0);
  };
  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    dragDepth.current = 0;
    setDragging(false);
    if (!canWrite) return toast.error('You cannot upload here.');
    try {
      startUploads(await fromDataTransfer(e.dataTransfer));
    } catch (err) {
      toast.error(err);
    }
  };

  return (
    <section
      className={dragging ? 'dropzone dragging' : 'dropzone'}
      onDragEnter={onDrag}
      onDragOver={onDrag}
      onDragLeave={onDrag}
      onDrop={(e) => void onDrop(e)}
      aria-label="Files"
    >
      <PageHeader
        title="Files"
        actions={
          canWrite && (
            <>
              <button type="button" className="btn btn-primary" onClick={() => fileInput.current?.click()}>
                Upload files
              </button>
              <button type="button" className="btn" onClick={() => folderInput.current?.click()}>
                Upload folder
              </button>
              <button type="button" className="btn" onClick={() => void mkdir()}>
                New folder
              </button>
              {can(me, Perm.OFFLINE_DOWNLOAD) && (
                <button type="button" className="btn" onClick={() => setDialog({ kind: 'offline' })}>
                  Offline download
                </button>
              )}
              <button type="button" className="btn btn-ghost" aria-expanded={showOptions} onClick={() => setShowOptions(!showOptions)}>
                Upload options{options.sidecars ? ' (sidecars on)' : ''}
              </button>
            </>
          )
        }
      />
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        data-testid="upload-input"
        onChange={(e) => {
          if (e.target.files) startUploads(fromFileList(e.target.files));
          e.target.value = '';
        }}
      />
      <input
        ref={folderInput}
        type="file"
        hidden
        {...{ webkitdirectory: '', directory: '' }}
        onChange={(e) => {
          if (e.target.files) startUploads(fromFileList(e.target.files));
          e.target.value = '';
        }}
      />
      {showOptions && (
        <UploadOptionsPanel
          value={options}
          onChange={(o) => {
            touched.current = true;
            setOptions(o);
          }}
        />
      )}
      <UploadList items={uploads.items} onCancel={uploads.cancel} onClear={uploads.clear} />

      <div className="files-bar">
        <Breadcrumb path={path} />
        <div className="view-toggle" role="group" aria-label="View">
          <button type="button" className="btn btn-small btn-ghost" aria-pressed={view === 'list'} onClick={() => chooseView('list')}>
            List
          </button>
          <button type="button" className="btn btn-small btn-ghost" aria-pressed={view === 'grid'} onClick={() => chooseView('grid')}>
            Grid
          </button>
        </div>
      </div>
      {(session.settings.search_index ?? 'none') !== 'none' && <SearchBox path={path} />}

      {selectedNames.length > 0 && (
        <div className="selection-bar" role="toolbar" aria-label="Selection">
          <strong>{selectedNames.length} selected</strong>
          {single && !single.is_dir && (
            <a className="btn btn-small" href={downloadUrl(single)} download={single.name}>
              Download
            </a>
          )}
          {single && can(me, Perm.RENAME) && (
            <button type="button" className="btn btn-small" onClick={() => void rename(single)}>
              Rename
            </button>
          )}
          {can(me, Perm.MOVE) && (
            <button type="button" className="btn btn-small" onClick={() => setDialog({ kind: 'move', names: selectedNames })}>
              Move
            </button>
          )}
          {can(me, Perm.COPY) && (
            <button type="button" className="btn btn-small" onClick={() => setDialog({ kind: 'copy', names: selectedNames })}>
              Copy
            </button>
          )}
          {can(me, Perm.WRITE) && (
            <Link className="btn btn-small" to={'/seeds/new?' + new URLSearchParams(selectedNames.map((n) => ['path', fullPath(n)]))}>Make seed</Link>
          )}
          {can(me, Perm.SHARE) && me.role !== 1 && (
            <button type="button" className="btn btn-small" onClick={() => setDialog({ kind: 'share', names: selectedNames })}>
              Share
            </button>
          )}
          {can(me, Perm.REMOVE) && (
            <button type="button" className="btn btn-small btn-danger" onClick={() => void remove(selectedNames)}>
              Delete
            </button>
          )}
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        </div>
      )}

      {folder.isPending ? (
        <Spinner />
      ) : error ? (
        <div className="card">
          <InlineError error={error} />
          {path !== '/' && <Link to={filesHref(parentPath(path))}>Go up one folder</Link>}
        </div>
      ) : items.length === 0 ? (
        <div className="card">
          <EmptyState title="This folder is empty">{canWrite ? 'Drop files or folders here, or use Upload files.' : 'Nothing to see here yet.'}</EmptyState>
        </div>
      ) : (
        view === 'grid' ? (
          <FileGrid items={items} selected={selected} onSelect={setSelected} onOpen={open} downloadUrl={downloadUrl} />
        ) : (
          <FileTable items={items} sort={sort} onSort={setSort} selected={selected} onSelect={setSelected} onOpen={open} downloadUrl={downloadUrl} />
        )
      )}
      <FolderReadme items={items} urlOf={downloadUrl} />

      {dialog?.kind === 'offline' && (
        <OfflineDownloadDialog
          dir={path}
          onClose={() => {
            setDialog(null);
            void load();
          }}
        />
      )}
      {dialog?.kind === 'share' && <ShareDialog paths={dialog.names.map(fullPath)} onClose={() => setDialog(null)} />}
      {(dialog?.kind === 'move' || dialog?.kind === 'copy') && (
        <TransferDialog
          kind={dialog.kind}
          srcDir={path}
          names={dialog.names}
          onClose={() => setDialog(null)}
          onDone={(message) => {
            setDialog(null);
            toast.success(message);
            setSelected(new Set());
            void load();
          }}
        />
      )}
    </section>
  );
}
