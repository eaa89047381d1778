/** Own SSH public keys (for SFTP): list with fingerprint / added / last used, add, delete. */
import { useState } from 'react';
import { api } from '../../api.js';
import { ACTIONS, DataTable, RowActions, RowButton, type Column } from '../../components/DataTable.js';
import { useDialogs } from '../../components/Dialogs.js';
import { TextArea, TextField } from '../../components/Field.js';
import { useSubmit, useToastAction } from '../../components/hooks.js';
import { queryKeys, useServerData } from '../../lib/queries.js';
import { useToast } from '../../components/Toast.js';
import { EmptyState, InlineError, ListView } from '../../components/ui.js';
import { formatDate } from '../../lib/format.js';
import type { Page, SshKey } from '../../types.js';

const COLUMNS: Column[] = ['Title', 'Fingerprint', { label: 'Added', className: 'hide-sm' }, { label: 'Last used', className: 'hide-sm' }, ACTIONS];
const fetchKeys = async () => (await api.get<Page<SshKey>>('/api/me/sshkey/list')).content;

export function SshKeysSection() {
  const toast = useToast();
  const { confirm } = useDialogs();
  const { data: keys, error: loadError, reload } = useServerData(queryKeys.sshKeys, fetchKeys);
  const act = useToastAction(reload);
  const [title, setTitle] = useState('');
  const [key, setKey] = useState('');
  const { busy, error, setError, run } = useSubmit();

  const add = async (e: React.FormEvent) => {
    e.preventDefault();
    const line = key.trim();
    // A pasted key line's comment is a sensible default title.
    const t = title.trim() || line.split(/\s+/)[2] || '';
    if (!line) return setError('Paste a public key line (e.g. the contents of ~/.ssh/id_ed25519.pub).');
    if (!t) return setError('Give the key a title.');
    if (t.length > 64) return setError('The title can be at most 64 characters.');
    await run(async () => {
      await api.post('/api/me/sshkey/add', { title: t, key: line });
      setTitle('');
      setKey('');
      toast.success(`Key “${t}” added`);
      await reload();
    });
  };

  const remove = async (k: SshKey) => {
    if (!(await confirm({ title: `Delete key “${k.title}”?`, message: 'SFTP logins with this key stop working.', confirmLabel: 'Delete', danger: true }))) return;
    await act(() => api.post('/api/me/sshkey/delete', undefined, { query: { id: k.id } }), `Key “${k.title}” deleted`);
  };

  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title">SSH keys</h2>
      <p className="muted">Public keys that may sign in over SFTP as you.</p>
      {loadError ? (
        <InlineError error={loadError} />
      ) : (
        <ListView items={keys} empty={<EmptyState title="No SSH keys yet">Add one below to use SFTP without a password.</EmptyState>}>
          {(list) => (
            <DataTable columns={COLUMNS} style={{ marginBottom: '1rem' }}>
              {list.map((k) => (
                <tr key={k.id} data-key={k.title}>
                  <td>{k.title}</td>
                  <td className="mono" style={{ overflowWrap: 'anywhere' }}>
                    {k.fingerprint}
                  </td>
                  <td className="nowrap hide-sm">{formatDate(k.added_time)}</td>
                  <td className="nowrap hide-sm">{k.last_used_time === k.added_time ? 'Never' : formatDate(k.last_used_time)}</td>
                  <RowActions>
                    <RowButton label="Delete" name={`Delete key ${k.title}`} tone="danger" onClick={() => void remove(k)} />
                  </RowActions>
                </tr>
              ))}
            </DataTable>
          )}
        </ListView>
      )}
      <form onSubmit={add} noValidate aria-label="Add an SSH key">
        <h3>Add a key</h3>
        <TextField label="Title" hint="Up to 64 characters; defaults to the key's comment." value={title} onChange={setTitle} maxLength={64} />
        <TextArea label="Public key" hint="One line: type, base64 and an optional comment." value={key} onChange={setKey} rows={3} spellCheck={false} />
        <InlineError error={error} />
        <button type="submit" className="btn btn-primary" disabled={busy}>
          Add key
        </button>
      </form>
    </section>
  );
}
