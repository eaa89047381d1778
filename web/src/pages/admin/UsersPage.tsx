/** Admin: users — list, create, edit (permissions by name), delete, cancel 2FA. */
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { useDialogs } from '../../components/Dialogs.js';
import { CheckboxField, TextField } from '../../components/Field.js';
import { Modal } from '../../components/Modal.js';
import { useToast } from '../../components/Toast.js';
import { Badge, InlineError, PageHeader, Spinner } from '../../components/ui.js';
import { hasBit, PERMISSIONS, ROLE_NAMES } from '../../lib/permissions.js';
import type { Page, User } from '../../types.js';

export function UsersPage() {
  const toast = useToast();
  const { confirm } = useDialogs();
  const [users, setUsers] = useState<User[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<User | 'new' | null>(null);

  const load = useCallback(async () => {
    try {
      setUsers((await api.get<Page<User>>('/api/admin/user/list')).content);
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
      {users === null ? (
        !error && <Spinner />
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Role</th>
                <th scope="col" className="hide-sm">
                  Home folder
                </th>
                <th scope="col">Status</th>
                <th scope="col" className="actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.id} data-user={u.username}>
                  <td>
                    <strong>{u.username}</strong>
                  </td>
                  <td>{ROLE_NAMES[u.role] ?? u.role}</td>
                  <td className="mono hide-sm">{u.base_path}</td>
                  <td>
                    <div className="row">
                      {u.disabled ? <Badge tone="bad">Disabled</Badge> : <Badge tone="ok">Active</Badge>}
                      {u.otp && <Badge>2FA</Badge>}
                    </div>
                  </td>
                  <td className="actions">
                    <div className="row" style={{ justifyContent: 'flex-end' }}>
                      <button type="button" className="btn btn-small" onClick={() => setEditing(u)} aria-label={`Edit ${u.username}`}>
                        Edit
                      </button>
                      {u.otp && (
                        <button type="button" className="btn btn-small" onClick={() => void cancel2fa(u)} aria-label={`Cancel 2FA of ${u.username}`}>
                          Cancel 2FA
                        </button>
                      )}
                      {u.role === 0 && (
                        <button type="button" className="btn btn-small btn-danger" onClick={() => void remove(u)} aria-label={`Delete ${u.username}`}>
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <UserDialog
          user={editing === 'new' ? null : editing}
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

function UserDialog({ user, onClose, onSaved }: { user: User | null; onClose: () => void; onSaved: (msg: string) => void }) {
  const [username, setUsername] = useState(user?.username ?? '');
  const [password, setPassword] = useState('');
  const [basePath, setBasePath] = useState(user?.base_path ?? '/');
  const [disabled, setDisabled] = useState(user?.disabled ?? false);
  const [permission, setPermission] = useState(user?.permission ?? 0);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const isAdmin = user?.role === 2;

  const save = async () => {
    if (!username.trim()) return setError('Enter a username.');
    if (!user && !password) return setError('Set a password for the new user.');
    if (!basePath.startsWith('/')) return setError('The home folder must start with /.');
    setBusy(true);
    setError(null);
    const body = { username: username.trim(), base_path: basePath, disabled, permission, ...(password ? { password } : {}) };
    try {
      if (user) await api.post('/api/admin/user/update', { id: user.id, ...body });
      else await api.post('/api/admin/user/create', body);
      onSaved(user ? `Saved “${body.username}”` : `Created “${body.username}”`);
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      wide
      title={user ? `Edit “${user.username}”` : 'New user'}
      onClose={onClose}
      onSubmit={save}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {user ? 'Save' : 'Create user'}
          </button>
        </>
      }
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
