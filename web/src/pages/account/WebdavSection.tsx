/** WebDAV: the mount URL, how to mount it (rclone, Finder, Explorer), and app passwords (create, list, revoke). */
import { useState } from 'react';
import { api } from '../../api.js';
import { ACTIONS, DataTable, RowActions, RowButton, type Column } from '../../components/DataTable.js';
import { useDialogs } from '../../components/Dialogs.js';
import { TextField } from '../../components/Field.js';
import { useSubmit, useToastAction } from '../../components/hooks.js';
import { queryKeys, useServerData } from '../../lib/queries.js';
import { EmptyState, InlineError, ListView } from '../../components/ui.js';
import { formatDate } from '../../lib/format.js';
import { useSession } from '../../session.js';
import type { AppPassword } from '../../types.js';

const COLUMNS: Column[] = ['Name', { label: 'Created', className: 'hide-sm' }, 'Last used', ACTIONS];
const fetchPasswords = async () => (await api.get<{ content: AppPassword[]; total: number }>('/api/me/app_password/list')).content;

export function WebdavSection() {
  const { me } = useSession();
  const { confirm } = useDialogs();
  const { data: passwords, error: loadError, reload } = useServerData(queryKeys.webdavPasswords, fetchPasswords);
  const act = useToastAction(reload);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; password: string } | null>(null);
  const { busy, error, setError, run } = useSubmit();
  const url = `${window.location.origin}/dav/`;
  const rclone = `rclone config create ferry webdav url=${url} vendor=other user=${me!.username} pass=$(rclone obscure 'APP-PASSWORD')`;

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    const n = name.trim();
    if (!n) return setError('Name the device or program that will use it.');
    await run(async () => {
      const r = await api.post<AppPassword & { password: string }>('/api/me/app_password/create', { name: n });
      setCreated({ name: r.name, password: r.password });
      setName('');
      await reload();
    });
  };

  const revoke = async (p: AppPassword) => {
    if (!(await confirm({ title: `Revoke “${p.name}”?`, message: 'WebDAV and SFTP logins with this app password stop working at once.', confirmLabel: 'Revoke', danger: true }))) return;
    await act(() => api.post('/api/me/app_password/delete', undefined, { query: { id: p.id } }), `App password “${p.name}” revoked`);
  };

  return (
    <section className="card" aria-labelledby="webdav-title">
      <h2 id="webdav-title">WebDAV and app passwords</h2>
      <dl className="kv" style={{ marginBottom: '1rem' }}>
        <dt>WebDAV URL</dt>
        <dd className="mono" data-testid="webdav-url">
          {url}
        </dd>
        <dt>rclone</dt>
        <dd className="mono" style={{ overflowWrap: 'anywhere' }}>
          {rclone}
        </dd>
        <dt>Finder</dt>
        <dd>Go → Connect to Server…, enter the URL, then your username and an app password.</dd>
        <dt>Explorer</dt>
        <dd>This PC → Map network drive → “Connect to a Web site…”, enter the URL (HTTPS recommended).</dd>
      </dl>
      <p className="muted">
        App passwords sign in mount clients (WebDAV) and SFTP password logins; they never work for this web page. With two-factor authentication on, WebDAV accepts only
        app passwords.
      </p>
      {created && (
        <div className="card" role="status" data-testid="new-app-password">
          <strong>App password for “{created.name}”</strong> — copy it now, it is not shown again:
          <div className="mono" style={{ fontSize: '1.1em', margin: '.5rem 0' }}>
            {created.password}
          </div>
          <button type="button" className="btn" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      {loadError ? (
        <InlineError error={loadError} />
      ) : (
        <ListView items={passwords} empty={<EmptyState title="No app passwords yet">Create one for each device or program that mounts Ferry.</EmptyState>}>
          {(list) => (
            <DataTable columns={COLUMNS} style={{ marginBottom: '1rem' }}>
              {list.map((p) => (
                <tr key={p.id} data-app-password={p.name}>
                  <td>{p.name}</td>
                  <td className="nowrap hide-sm">{formatDate(p.created_time)}</td>
                  <td className="nowrap">{Date.parse(p.last_used_time) === 0 ? 'Never' : formatDate(p.last_used_time)}</td>
                  <RowActions>
                    <RowButton label="Revoke" name={`Revoke app password ${p.name}`} tone="danger" onClick={() => void revoke(p)} />
                  </RowActions>
                </tr>
              ))}
            </DataTable>
          )}
        </ListView>
      )}
      <form onSubmit={create} noValidate aria-label="Create an app password">
        <TextField label="App password name" hint="e.g. “laptop rclone” or “phone”; up to 100 characters." value={name} onChange={setName} maxLength={100} />
        <InlineError error={error} />
        <button type="submit" className="btn btn-primary" disabled={busy}>
          Create app password
        </button>
      </form>
    </section>
  );
}
