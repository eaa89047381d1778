/** Create a share for the selected entries: expiry, password, download limit, note; then copy its link. */
import { useState } from 'react';
import { api } from '../../api.js';
import { SelectField, TextField } from '../../components/Field.js';
import { useSubmit } from '../../components/hooks.js';
import { Modal, ModalActions } from '../../components/Modal.js';
import { CopyButton, InlineError } from '../../components/ui.js';
import { formatDate } from '../../lib/format.js';
import type { Share } from '../../types.js';

const EXPIRY = [
  { value: 'never', label: 'Never' },
  { value: '1', label: '1 day' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: 'custom', label: 'Choose a date…' },
];

export function ShareDialog({ paths, onClose }: { paths: string[]; onClose: () => void }) {
  const [expiry, setExpiry] = useState('7');
  const [custom, setCustom] = useState('');
  const [pwd, setPwd] = useState('');
  const [max, setMax] = useState('0');
  const [remark, setRemark] = useState('');
  const { busy, error, setError, run } = useSubmit();
  const [share, setShare] = useState<Share | null>(null);

  const create = async () => {
    let expires: string | null = null;
    if (expiry === 'custom') {
      const d = new Date(custom);
      if (!custom || Number.isNaN(d.getTime())) return setError('Choose when the share expires.');
      if (d.getTime() <= Date.now()) return setError('The expiry must be in the future.');
      expires = d.toISOString();
    } else if (expiry !== 'never') {
      expires = new Date(Date.now() + Number(expiry) * 86_400_000).toISOString();
    }
    if (!/^\d+$/.test(max.trim())) return setError('The download limit must be a whole number (0 = unlimited).');
    await run(async () => setShare(await api.post<Share>('/api/share/create', { files: paths, expires, pwd, max_accessed: Number(max), remark })));
  };

  if (share) {
    const withPwd = share.pwd ? `${share.url}?pwd=${encodeURIComponent(share.pwd)}` : share.url;
    return (
      <Modal
        key="created"
        open
        title="Share created"
        onClose={onClose}
        footer={
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Done
          </button>
        }
      >
        <div className="field">
          <label htmlFor="share-url">Link</label>
          <div className="link-box">
            <input id="share-url" className="input" readOnly value={share.url} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={share.url} />
          </div>
        </div>
        {share.pwd && (
          <div className="field">
            <label htmlFor="share-url-pwd">Link with password</label>
            <div className="link-box">
              <input id="share-url-pwd" className="input" readOnly value={withPwd} onFocus={(e) => e.currentTarget.select()} />
              <CopyButton text={withPwd} />
            </div>
          </div>
        )}
        <dl className="kv">
          <dt>Expires</dt>
          <dd>{share.expires ? formatDate(share.expires) : 'Never'}</dd>
          <dt>Downloads</dt>
          <dd>{share.max_accessed ? `at most ${share.max_accessed}` : 'unlimited'}</dd>
          <dt>Files</dt>
          <dd>{share.files.join(', ')}</dd>
        </dl>
      </Modal>
    );
  }

  return (
    <Modal
      open
      title={paths.length === 1 ? `Share “${paths[0]!.split('/').pop()}”` : `Share ${paths.length} items`}
      onClose={onClose}
      onSubmit={create}
      footer={<ModalActions onCancel={onClose} submitLabel={busy ? 'Creating…' : 'Create link'} disabled={busy} />}
    >
      <div className="grid-2">
        <SelectField label="Expires" value={expiry} onChange={setExpiry} options={EXPIRY} />
        {expiry === 'custom' && <TextField label="Expiry date" type="datetime-local" value={custom} onChange={setCustom} />}
      </div>
      <div className="grid-2">
        <TextField label="Password" hint="Optional. Anyone with the link needs it." value={pwd} onChange={setPwd} autoComplete="off" />
        <TextField label="Download limit" hint="0 = unlimited" inputMode="numeric" value={max} onChange={setMax} />
      </div>
      <TextField label="Note" hint="Optional, only you see it." value={remark} onChange={setRemark} />
      <InlineError error={error} />
    </Modal>
  );
}
