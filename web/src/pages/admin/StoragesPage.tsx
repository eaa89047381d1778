/** Admin: storages — list with status, create/edit with the driver's own option form, enable/disable, delete. */
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { useDialogs } from '../../components/Dialogs.js';
import { useToast } from '../../components/Toast.js';
import { Badge, EmptyState, InlineError, PageHeader, Spinner } from '../../components/ui.js';
import type { DriverInfo, Page, Storage } from '../../types.js';
import { StorageDialog } from './StorageDialog.js';

export function StoragesPage() {
  const toast = useToast();
  const { confirm } = useDialogs();
  const [storages, setStorages] = useState<Storage[] | null>(null);
  const [drivers, setDrivers] = useState<Record<string, DriverInfo> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Storage | 'new' | null>(null);

  const load = useCallback(async () => {
    try {
      const [s, d] = await Promise.all([api.get<Page<Storage>>('/api/admin/storage/list'), api.get<Record<string, DriverInfo>>('/api/admin/driver/list')]);
      setStorages([...s.content].sort((a, b) => a.order - b.order || a.mount_path.localeCompare(b.mount_path)));
      setDrivers(d);
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => void load(), [load]);

  const act = async (fn: () => Promise<unknown>, done: string) => {
    try {
      await fn();
      toast.success(done);
      await load();
    } catch (e) {
      toast.error(e);
    }
  };
  const toggle = (s: Storage) =>
    act(() => api.post(`/api/admin/storage/${s.disabled ? 'enable' : 'disable'}`, undefined, { query: { id: s.id } }), `${s.mount_path} ${s.disabled ? 'enabled' : 'disabled'}`);
  const remove = async (s: Storage) => {
    if (!(await confirm({ title: `Remove storage “${s.mount_path}”?`, message: 'Only the mount is removed; the files on the storage stay where they are.', confirmLabel: 'Remove', danger: true }))) return;
    await act(() => api.post('/api/admin/storage/delete', undefined, { query: { id: s.id } }), `Removed ${s.mount_path}`);
  };

  return (
    <section>
      <PageHeader
        title="Storages"
        subtitle="Where files live. Each storage is mounted at a path of the tree."
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')} disabled={!drivers}>
            Add storage
          </button>
        }
      />
      <InlineError error={error} />
      {storages === null ? (
        !error && <Spinner />
      ) : storages.length === 0 ? (
        <div className="card">
          <EmptyState title="No storages">Add one to start storing files.</EmptyState>
        </div>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Mount path</th>
                <th scope="col" className="hide-sm">
                  Driver
                </th>
                <th scope="col">Status</th>
                <th scope="col" className="hide-sm">
                  Seeds
                </th>
                <th scope="col" className="hide-sm">
                  Proxy
                </th>
                <th scope="col" className="actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {storages.map((s) => (
                <tr key={s.id} data-storage={s.mount_path}>
                  <td>
                    <strong className="mono">{s.mount_path}</strong>
                    {s.remark && <div className="muted small">{s.remark}</div>}
                  </td>
                  <td className="hide-sm">{drivers?.[s.driver]?.config.display_name ?? s.driver}</td>
                  <td>
                    {s.disabled ? (
                      <Badge>Disabled</Badge>
                    ) : s.status === 'work' ? (
                      <Badge tone="ok">Working</Badge>
                    ) : (
                      <span title={s.status}>
                        <Badge tone="bad">Error</Badge> <span className="small muted">{s.status}</span>
                      </span>
                    )}
                  </td>
                  <td className="hide-sm">{s.seed_policy}</td>
                  <td className="hide-sm">{s.proxy ? 'Yes' : 'No'}</td>
                  <td className="actions">
                    <div className="row" style={{ justifyContent: 'flex-end' }}>
                      <button type="button" className="btn btn-small" onClick={() => setEditing(s)} aria-label={`Edit ${s.mount_path}`}>
                        Edit
                      </button>
                      <button type="button" className="btn btn-small" onClick={() => void toggle(s)} aria-label={`${s.disabled ? 'Enable' : 'Disable'} ${s.mount_path}`}>
                        {s.disabled ? 'Enable' : 'Disable'}
                      </button>
                      <button type="button" className="btn btn-small btn-danger" onClick={() => void remove(s)} aria-label={`Remove ${s.mount_path}`}>
                        Remove
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && drivers && (
        <StorageDialog
          storage={editing === 'new' ? null : editing}
          drivers={drivers}
          onClose={() => setEditing(null)}
          onSaved={(msg) => {
            setEditing(null);
            toast.success(msg);
            void load();
          }}
        />
      )}
    </section>
  );
}
