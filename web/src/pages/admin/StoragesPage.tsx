/** Admin: storages — list with status, create/edit with the driver's own option form, enable/disable, delete. */
import { api } from '../../api.js';
import { ACTIONS, DataTable, RowActions, RowButton, type Column } from '../../components/DataTable.js';
import { useDialogs } from '../../components/Dialogs.js';
import { useEditing, useToastAction } from '../../components/hooks.js';
import { queryKeys, useServerData } from '../../lib/queries.js';
import { Badge, EmptyState, InlineError, ListView, PageHeader } from '../../components/ui.js';
import type { DriverInfo, Page, Storage } from '../../types.js';
import { StorageDialog } from './StorageDialog.js';

interface Loaded {
  storages: Storage[];
  drivers: Record<string, DriverInfo>;
}

async function fetchStorages(): Promise<Loaded> {
  const [s, drivers] = await Promise.all([api.get<Page<Storage>>('/api/admin/storage/list'), api.get<Record<string, DriverInfo>>('/api/admin/driver/list')]);
  return { storages: [...s.content].sort((a, b) => a.order - b.order || a.mount_path.localeCompare(b.mount_path)), drivers };
}

const COLUMNS: Column[] = [
  'Mount path',
  { label: 'Driver', className: 'hide-sm' },
  'Status',
  { label: 'Seeds', className: 'hide-sm' },
  { label: 'Proxy', className: 'hide-sm' },
  ACTIONS,
];

function StatusBadge({ s }: { s: Storage }) {
  if (s.disabled) return <Badge>Disabled</Badge>;
  if (s.status === 'work') return <Badge tone="ok">Working</Badge>;
  return (
    <span title={s.status}>
      <Badge tone="bad">Error</Badge> <span className="small muted">{s.status}</span>
    </span>
  );
}

export function StoragesPage() {
  const { confirm } = useDialogs();
  const { data, error, reload } = useServerData(queryKeys.storages, fetchStorages);
  const act = useToastAction(reload);
  const { editing, setEditing, saved } = useEditing<Storage>(reload);
  const drivers = data?.drivers ?? null;

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
      <ListView
        items={data?.storages ?? null}
        failed={!!error}
        empty={
          <div className="card">
            <EmptyState title="No storages">Add one to start storing files.</EmptyState>
          </div>
        }
      >
        {(storages) => (
          <DataTable columns={COLUMNS}>
            {storages.map((s) => (
              <tr key={s.id} data-storage={s.mount_path}>
                <td>
                  <strong className="mono">{s.mount_path}</strong>
                  {s.remark && <div className="muted small">{s.remark}</div>}
                </td>
                <td className="hide-sm">{drivers?.[s.driver]?.config.display_name ?? s.driver}</td>
                <td>
                  <StatusBadge s={s} />
                </td>
                <td className="hide-sm">{s.seed_policy}</td>
                <td className="hide-sm">{s.proxy ? 'Yes' : 'No'}</td>
                <RowActions>
                  <RowButton label="Edit" name={`Edit ${s.mount_path}`} onClick={() => setEditing(s)} />
                  <RowButton label={s.disabled ? 'Enable' : 'Disable'} name={`${s.disabled ? 'Enable' : 'Disable'} ${s.mount_path}`} onClick={() => void toggle(s)} />
                  <RowButton label="Remove" name={`Remove ${s.mount_path}`} tone="danger" onClick={() => void remove(s)} />
                </RowActions>
              </tr>
            ))}
          </DataTable>
        )}
      </ListView>
      {editing && drivers && (
        <StorageDialog
          storage={editing === 'new' ? null : editing}
          drivers={drivers}
          onClose={() => setEditing(null)}
          onSaved={saved}
        />
      )}
    </section>
  );
}
