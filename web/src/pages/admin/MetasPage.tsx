/** Admin: metas — per-folder rules (password, hidden names, write bypass, readme, header): list, add, edit, delete. */
import { useState } from 'react';
import { api } from '../../api.js';
import { ACTIONS, DataTable, RowActions, RowButton, type Column } from '../../components/DataTable.js';
import { useDialogs } from '../../components/Dialogs.js';
import { CheckboxField, TextArea, TextField } from '../../components/Field.js';
import { useEditing, useSubmit, useToastAction } from '../../components/hooks.js';
import { queryKeys, useServerData } from '../../lib/queries.js';
import { Modal, ModalActions } from '../../components/Modal.js';
import { Badge, EmptyState, InlineError, ListView, PageHeader } from '../../components/ui.js';
import type { Meta, Page } from '../../types.js';

const fetchMetas = () => api.get<Page<Meta>>('/api/admin/meta/list');

const COLUMNS: Column[] = ['Folder', 'Rules', ACTIONS];

type Draft = Omit<Meta, 'id'>;
const EMPTY: Draft = { path: '/', password: '', p_sub: false, write: false, w_sub: false, hide: '', h_sub: false, readme: '', r_sub: false, header: '', header_sub: false };

function rules(m: Meta): string[] {
  const out: string[] = [];
  if (m.password) out.push(m.p_sub ? 'Password (+ subfolders)' : 'Password');
  if (m.hide.trim()) out.push(m.h_sub ? 'Hides names (+ subfolders)' : 'Hides names');
  if (m.write) out.push(m.w_sub ? 'Write for all (+ subfolders)' : 'Write for all');
  if (m.readme.trim()) out.push('Readme');
  if (m.header.trim()) out.push('Header');
  return out;
}

function MetaDialog({ meta, onClose, onSaved }: { meta: Meta | null; onClose: () => void; onSaved: (msg: string) => void }) {
  const [d, setD] = useState<Draft>(meta ? { ...meta } : EMPTY);
  const { busy, error, setError, run } = useSubmit();
  const set = <K extends keyof Draft>(k: K) => (v: Draft[K]) => setD((x) => ({ ...x, [k]: v }));
  const save = async () => {
    if (!d.path.startsWith('/')) return setError('The folder must start with /.');
    await run(async () => {
      if (meta) await api.post('/api/admin/meta/update', { id: meta.id, ...d });
      else await api.post('/api/admin/meta/create', d);
      onSaved(meta ? `Saved the rules of ${d.path}` : `Added rules for ${d.path}`);
    });
  };
  return (
    <Modal
      open
      wide
      title={meta ? `Edit rules of ${meta.path}` : 'Add folder rules'}
      onClose={onClose}
      onSubmit={save}
      footer={<ModalActions onCancel={onClose} submitLabel={meta ? 'Save' : 'Add'} disabled={busy} />}
    >
      <TextField label="Folder" hint="Full path in the tree, e.g. /media/private. Each rule covers this folder; “also subfolders” extends it below." value={d.path} onChange={set('path')} />
      <div className="grid-2">
        <TextField label="Password" hint="Asked before listing the folder or opening its files (users with “Access without password” skip it)." type="password" autoComplete="new-password" value={d.password} onChange={set('password')} />
        <CheckboxField label="Password also for subfolders" checked={d.p_sub} onChange={set('p_sub')} />
        <TextArea label="Hidden names" hint="One RE2 pattern per line, e.g. ^\. or \.bak$ — hidden from users without “See hidden files” (listings, SFTP, shares)." value={d.hide} onChange={set('hide')} rows={3} spellCheck={false} />
        <CheckboxField label="Hide also in subfolders" checked={d.h_sub} onChange={set('h_sub')} />
        <CheckboxField label="Anyone may create folders and upload here" hint="Even users without the write permission." checked={d.write} onChange={set('write')} />
        <CheckboxField label="Write also in subfolders" checked={d.w_sub} onChange={set('w_sub')} />
        <TextArea label="Header (Markdown)" hint="Shown above the listing." value={d.header} onChange={set('header')} rows={3} />
        <CheckboxField label="Header also in subfolders" checked={d.header_sub} onChange={set('header_sub')} />
        <TextArea label="Readme (Markdown)" hint="Shown below the listing." value={d.readme} onChange={set('readme')} rows={3} />
        <CheckboxField label="Readme also in subfolders" checked={d.r_sub} onChange={set('r_sub')} />
      </div>
      <InlineError error={error} />
    </Modal>
  );
}

export function MetasPage() {
  const { confirm } = useDialogs();
  const { data, error, reload } = useServerData(queryKeys.metas, fetchMetas);
  const act = useToastAction(reload);
  const { editing, setEditing, saved } = useEditing<Meta>(reload);
  const remove = async (m: Meta) => {
    if (!(await confirm({ title: `Remove the rules of “${m.path}”?`, message: 'The folder and its files stay; only the rules go.', confirmLabel: 'Remove', danger: true }))) return;
    await act(() => api.post('/api/admin/meta/delete', undefined, { query: { id: m.id } }), `Removed the rules of ${m.path}`);
  };
  return (
    <section>
      <PageHeader
        title="Metas"
        subtitle="Rules per folder: password, hidden names, write for everyone, readme and header. The nearest folder with rules counts."
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            Add rules
          </button>
        }
      />
      <InlineError error={error} />
      <ListView
        items={data?.content ?? null}
        failed={!!error}
        empty={
          <div className="card">
            <EmptyState title="No folder rules">Every folder follows the users' permissions alone.</EmptyState>
          </div>
        }
      >
        {(metas) => (
          <DataTable columns={COLUMNS}>
            {metas.map((m) => (
              <tr key={m.id} data-meta={m.path}>
                <td>
                  <strong className="mono">{m.path}</strong>
                </td>
                <td>{rules(m).length ? rules(m).map((r) => <Badge key={r}>{r}</Badge>) : <span className="muted">none</span>}</td>
                <RowActions>
                  <RowButton label="Edit" name={`Edit ${m.path}`} onClick={() => setEditing(m)} />
                  <RowButton label="Remove" name={`Remove ${m.path}`} tone="danger" onClick={() => void remove(m)} />
                </RowActions>
              </tr>
            ))}
          </DataTable>
        )}
      </ListView>
      {editing && <MetaDialog meta={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={saved} />}
    </section>
  );
}
