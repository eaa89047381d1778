/** Own SSH public keys (for SFTP): list with fingerprint / added / last used, add, delete. */
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { useDialogs } from '../../components/Dialogs.js';
import { TextArea, TextField } from '../../components/Field.js';
import { useToast } from '../../components/Toast.js';
import { EmptyState, InlineError, Spinner } from '../../components/ui.js';
import { formatDate } from '../../lib/format.js';
import type { Page, SshKey } from '../../types.js';

export function SshKeysSection() {
  const toast = useToast();
  const { confirm } = useDialogs();
  const [keys, setKeys] = useState<SshKey[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      setKeys((await api.get<Page<SshKey>>('/api/me/sshkey/list')).content);
      setLoadError(null);
    } catch (e) {
      setLoadError(errorMessage(e));
      setKeys([]);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const add = async (e: React.FormEvent) => {
    e.preventDefault();
    const line = key.trim();
    // A pasted key line's comment is a sensible default title.
    const t = title.trim() || line.split(/\s+/)[2] || '';
    if (!line) return setError('Paste a public key line (e.g. the contents of ~/.ssh/id_ed25519.pub).');
    if (!t) return setError('Give the key a title.');
    if (t.length > 64) return setError('The title can be at most 64 characters.');
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/me/sshkey/add', { title: t, key: line });
      setTitle('');
      setKey('');
      toast.success(`Key “${t}” added`);
      await load();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (k: SshKey) => {
    if (!(await confirm({ title: `Delete key “${k.title}”?`, message: 'SFTP logins with this key stop working.', confirmLabel: 'Delete', danger: true }))) return;
    try {
      await api.post('/api/me/sshkey/delete', undefined, { query: { id: k.id } });
      toast.success(`Key “${k.title}” deleted`);
      await load();
    } catch (e) {
      toast.error(e);
    }
  };

  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title">SSH keys</h2>
      <p className="muted">Public keys that may sign in over SFTP as you.</p>
      {keys === null ? (
        <Spinner />
      ) : loadError ? (
        <InlineError error={loadError} />
      ) : keys.length === 0 ? (
        <EmptyState title="No SSH keys yet">Add one below to use SFTP without a password.</EmptyState>
      ) : (
        <div className="table-wrap" style={{ marginBottom: '1rem' }}>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Fingerprint</th>
                <th scope="col" className="hide-sm">
                  Added
                </th>
                <th scope="col" className="hide-sm">
                  Last used
                </th>
                <th scope="col" className="actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-key={k.title}>
                  <td>{k.title}</td>
                  <td className="mono" style={{ overflowWrap: 'anywhere' }}>
                    {k.fingerprint}
                  </td>
                  <td className="nowrap hide-sm">{formatDate(k.added_time)}</td>
                  <td className="nowrap hide-sm">{k.last_used_time === k.added_time ? 'Never' : formatDate(k.last_used_time)}</td>
                  <td className="actions">
                    <button type="button" className="btn btn-small btn-danger" onClick={() => void remove(k)} aria-label={`Delete key ${k.title}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
