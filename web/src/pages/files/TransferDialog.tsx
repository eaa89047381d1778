/** Move or copy entries: pick the destination folder by browsing (`/api/fs/dirs`). */
import { useState } from 'react';
import { api } from '../../api.js';
import { FolderList } from '../../components/FolderList.js';
import { useSubmit } from '../../components/hooks.js';
import { Modal, ModalActions } from '../../components/Modal.js';
import { InlineError } from '../../components/ui.js';
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
  const { busy, error, setError, run } = useSubmit();
  const go = (p: string) => {
    setError(null);
    setDir(p);
  };

  const moving = new Set(names.map((n) => joinPath(srcDir, n)));
  const same = dir === srcDir;
  const verb = kind === 'move' ? 'Move' : 'Copy';

  const submit = async () => {
    if (same) return setError(`Choose a different folder to ${kind} into.`);
    await run(async () => {
      const r = await api.post<{ message?: string } | null>(`/api/fs/${kind}`, { src_dir: srcDir, dst_dir: dir, names });
      onDone(r?.message ?? `${verb} done`);
    });
  };

  return (
    <Modal
      open
      wide
      title={`${verb} ${names.length === 1 ? `“${names[0]}”` : `${names.length} items`}`}
      onClose={onClose}
      onSubmit={submit}
      footer={<ModalActions onCancel={onClose} submitLabel={busy ? `${verb === 'Move' ? 'Moving' : 'Copying'}…` : `${verb} here`} disabled={busy || same} />}
    >
      <p className="muted">Destination folder:</p>
      <Breadcrumb path={dir} onNavigate={go} />
      <FolderList dir={dir} onOpen={go} isDisabled={(p) => moving.has(p)} />
      <InlineError error={error} />
    </Modal>
  );
}
