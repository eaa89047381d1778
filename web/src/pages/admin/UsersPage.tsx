/** Admin: users — list, create, edit (permissions by name), delete, cancel 2FA. */
import { useState } from 'react';
import { api } from '../../api.js';
import { ACTIONS, DataTable, RowActions, RowButton, type Column } from '../../components/DataTable.js';
import { useDialogs } from '../../components/Dialogs.js';
import { CheckboxField, TextField } from '../../components/Field.js';
import { useEditing, useSubmit, useToastAction } from '../../components/hooks.js';
import { queryKeys, useServerData } from '../../lib/queries.js';
import { Modal, ModalActions } from '../../components/Modal.js';
import { Badge, EmptyState, InlineError, ListView, PageHeader } from '../../components/ui.js';
import { hasBit, PERMISSIONS, ROLE_NAMES } from '../../lib/permissions.js';
import type { Page, User } from '../../types.js';

const COLUMNS: Column[] = ['Username', { label: 'Role', className: 'hide-sm' }, { label: 'Home folder', className: 'hide-sm' }, 'Status', ACTIONS];
const fetchUsers = async () => (await api.get<Page<User>>('/api/admin/user/list')).content;

export function UsersPage() {
  const { confirm } = useDialogs();
  const { data: users, error, reload } = useServerData(queryKeys.users, fetchUsers);
  const act = useToastAction(reload);
  const { editing, setEditing, saved } = useEditing<User>(reload);

  const remove = async (u: User) => {
    if (!(await confirm({ title: `Delete user “${u.username}”?`, message: 'Their sessions, SSH keys and shares go with them. Files stay.', confirmLabel: 'Delete', danger: true }))) return;
    await act(() => api.post('/api/admin/user/delete', undefined, { query: { id: u.id } }), `Deleted “${u.username}”`);
  };
  const cancel2fa = async (u: User) => {
    if (!(await confirm({ title: `Turn off 2FA for “${u.username}”?`, message: 'They can then sign in with the password alone.', confirmLabel: 'Turn off' }))) return;
    await act(() => api.post('/api/admin/user/cancel_2fa', undefined, { query: { id: u.id } }), `Two-factor authentication of “${u.username}” is off`);
  };

  return (
    <section>
      <PageHeader
        title="Users"
        subtitle="Accounts, home folders and what each may do."
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            New user
          </button>
        }
      />
      <InlineError error={error} />
      <ListView items={users} failed={!!error} empty={<EmptyState title="No users" />}>
        {(list) => (
          <DataTable columns={COLUMNS}>
            {list.map((u) => (
              <tr key={u.id} data-user={u.username}>
                <td>
                  <strong>{u.username}</strong>
                </td>
                <td className="hide-sm">{ROLE_NAMES[u.role] ?? u.role}</td>
                <td className="mono hide-sm">{u.base_path}</td>
                <td>
                  <div className="row">
                    {u.disabled ? <Badge tone="bad">Disabled</Badge> : <Badge tone="ok">Active</Badge>}
                    {u.otp && <Badge>2FA</Badge>}
                  </div>
                </td>
                <RowActions>
                  <RowButton label="Edit" name={`Edit ${u.username}`} onClick={() => setEditing(u)} />
                  {u.otp && <RowButton label="Cancel 2FA" name={`Cancel 2FA of ${u.username}`} onClick={() => void cancel2fa(u)} />}
                  {u.role === 0 && <RowButton label="Delete" name={`Delete ${u.username}`} tone="danger" onClick={() => void remove(u)} />}
                </RowActions>
              </tr>
            ))}
          </DataTable>
        )}
      </ListView>
      {editing && (
        <UserDialog
          user={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={saved}
        />
      )}
    </section>
  );
}

function UserDialog({ user, onClose, onSaved }: { user: User | null; onClose: () => void; onSaved: (msg: string) => void }) {
  const [username, setUsername] = useState(user?.username ?? '');
  const [password, setPassword] = useState('');
  const [basePath, setBasePath] = useState(user?.base_path ?? '/');
  const [disabled, setDisabled] = useState(user?.disabled ?? false);
  const [permission, setPermission] = useState(user?.permission ?? 0);
  const { busy, error, setError, run } = useSubmit();
  const isAdmin = user?.role === 2;

  const save = async () => {
    if (!username.trim()) return setError('Enter a username.');
    if (!user && !password) return setError('Set a password for the new user.');
    if (!basePath.startsWith('/')) return setError('The home folder must start with /.');
    const body = { username: username.trim(), base_path: basePath, disabled, permission, ...(password ? { password } : {}) };
    await run(async () => {
      if (user) await api.post('/api/admin/user/update', { id: user.id, ...body });
      else await api.post('/api/admin/user/create', body);
      onSaved(user ? `Saved “${body.username}”` : `Created “${body.username}”`);
    });
  };

  return (
    <Modal
      open
      wide
      title={user ? `Edit “${user.username}”` : 'New user'}
      onClose={onClose}
      onSubmit={save}
      footer={<ModalActions onCancel={onClose} submitLabel={user ? 'Save' : 'Create user'} disabled={busy} />}
    >
      <div className="grid-2">
        <TextField label="Username" value={username} onChange={setUsername} autoComplete="off" />
        <TextField
          label={user ? 'New password' : 'Password'}
          hint={user ? 'Leave empty to keep the current password.' : undefined}
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
        />
        <TextField label="Home folder" hint="Everything this user sees lives under this path." value={basePath} onChange={setBasePath} />
        <div className="field">
          <span className="field-label">Role</span>
          <div>{user ? (ROLE_NAMES[user.role] ?? user.role) : ROLE_NAMES[0]}</div>
        </div>
      </div>
      <CheckboxField label="Disabled (cannot sign in)" checked={disabled} onChange={setDisabled} disabled={isAdmin} />
      <fieldset>
        <legend>Permissions</legend>
        {isAdmin && <p className="field-hint">Admins may do everything regardless of these.</p>}
        <div className="grid-2">
          {PERMISSIONS.map((p) => (
            <CheckboxField
              key={p.bit}
              label={p.name}
              checked={hasBit(permission, p.bit)}
              onChange={(on) => setPermission(on ? permission | (1 << p.bit) : permission & ~(1 << p.bit))}
            />
          ))}
        </div>
      </fieldset>
      <InlineError error={error} />
    </Modal>
  );
}
