/** Move or copy entries: pick the destination folder by browsing (`/api/fs/dirs`). */
import { useEffect, useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { Modal } from '../../components/Modal.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { joinPath } from '../../lib/format.js';
import { Breadcrumb } from './Breadcrumb.js';

export function TransferDialog({
  kind,
  srcDir,
  names,
  onClose,
  onDone,
}: {
  kind: 'move' | 'copy';
  srcDir: string;
  names: string[];
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const [dir, setDir] = useState(srcDir);
  const [dirs, setDirs] = useState<{ name: string }[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    setDirs(null);
    api
      .post<{ name: string }[]>('/api/fs/dirs', { path: dir })
      .then((d) => live && setDirs(d))
      .catch((e) => {
        if (!live) return;
        setDirs([]);
        setError(errorMessage(e));
      });
    return () => {
      live = false;
    };
  }, [dir]);

  const moving = new Set(names.map((n) => joinPath(srcDir, n)));
  const same = dir === srcDir;
  const verb = kind === 'move' ? 'Move' : 'Copy';

  const submit = async () => {
    if (same) return setError(`Choose a different folder to ${kind} into.`);
    setBusy(true);
    setError(null);
    try {
      const r = await api.post<{ message?: string } | null>(`/api/fs/${kind}`, { src_dir: srcDir, dst_dir: dir, names });
      onDone(r?.message ?? `${verb} done`);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      wide
      title={`${verb} ${names.length === 1 ? `“${names[0]}”` : `${names.length} items`}`}
      onClose={onClose}
      onSubmit={submit}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || same}>
            {busy ? `${verb === 'Move' ? 'Moving' : 'Copying'}…` : `${verb} here`}
          </button>
        </>
      }
    >
      <p className="muted">Destination folder:</p>
      <Breadcrumb path={dir} onNavigate={(p) => { setError(null); setDir(p); }} />
      {dirs === null ? (
        <Spinner />
      ) : dirs.length === 0 ? (
        <p className="muted">No folders inside.</p>
      ) : (
        <ul className="picker-list">
          {dirs.map((d) => {
            const p = joinPath(dir, d.name);
            return (
              <li key={d.name}>
                <button type="button" disabled={moving.has(p)} onClick={() => { setError(null); setDir(p); }}>
                  📁 {d.name}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <InlineError error={error} />
    </Modal>
  );
}
