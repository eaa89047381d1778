/**
 * Edit a stored seed: overall comment, trackers, and per file its comment and sources
 * (share/direct links). Only what changed is sent; the server checks every source.
 */
import { useState } from 'react';
import { TextArea } from '../../components/Field.js';
import { useSubmit } from '../../components/hooks.js';
import { Modal, ModalActions } from '../../components/Modal.js';
import { InlineError } from '../../components/ui.js';
import type { Preview, UpdateEdits } from './seedApi.js';
import { extraTrackerList, trackersProblem } from './wizardModel.js';

interface SourceDraft {
  type: string;
  url: string;
  expires_at?: string;
  share_id?: string;
}
interface FileDraft {
  path: string;
  comment: string;
  sources: SourceDraft[];
}

const MAX_FILES = 100;
const plain = (s: SourceDraft): SourceDraft => ({ type: s.type, url: s.url, ...(s.expires_at ? { expires_at: s.expires_at } : {}), ...(s.share_id ? { share_id: s.share_id } : {}) });
const same = (a: SourceDraft[], b: SourceDraft[]) => JSON.stringify(a.map(plain)) === JSON.stringify(b.map(plain));

function SourcesEditor({ file, onChange }: { file: FileDraft; onChange: (s: SourceDraft[]) => void }) {
  const set = (i: number, patch: Partial<SourceDraft>) => onChange(file.sources.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  return (
    <div className="sources-editor">
      {file.sources.map((s, i) => (
        <div key={i} className="source-edit-row">
          <select className="input input-compact" aria-label={`Source ${i + 1} type for ${file.path}`} value={s.type} onChange={(e) => set(i, { type: e.target.value })}>
            <option value="openlist-share">share</option>
            <option value="openlist-direct">direct</option>
          </select>
          <input className="input input-compact" aria-label={`Source ${i + 1} URL for ${file.path}`} value={s.url} onChange={(e) => set(i, { url: e.target.value })} />
          <button type="button" className="btn btn-small btn-ghost" aria-label={`Remove source ${i + 1} of ${file.path}`} onClick={() => onChange(file.sources.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="btn btn-small" onClick={() => onChange([...file.sources, { type: 'openlist-direct', url: '' }])}>
        Add source
      </button>
    </div>
  );
}

export function EditSeedDialog({ preview, onClose, onSave }: { preview: Preview; onClose: () => void; onSave: (edits: UpdateEdits) => Promise<void> }) {
  const [comment, setComment] = useState(preview.comment);
  const [trackers, setTrackers] = useState(preview.trackers.join('\n'));
  const original = preview.files.slice(0, MAX_FILES).map((f): FileDraft => ({ path: f.path, comment: f.comment, sources: f.sources.map(plain) }));
  const [files, setFiles] = useState<FileDraft[]>(original);
  const { busy, error, setError, run } = useSubmit();
  const trackerError = trackersProblem(trackers);

  const submit = async () => {
    if (trackerError) return;
    const blank = files.find((f) => f.sources.some((s) => s.url.trim() === ''));
    if (blank) return setError(`${blank.path}: a source has no URL; fill it in or remove it.`);
    const edits: UpdateEdits = {};
    if (comment !== preview.comment) edits.comment = comment;
    const t = extraTrackerList(trackers);
    if (t.join('\n') !== preview.trackers.join('\n')) edits.trackers = t;
    const changed = files.flatMap((f, i) => {
      const o = original[i]!;
      const c = f.comment !== o.comment;
      const s = !same(f.sources, o.sources);
      if (!c && !s) return [];
      return [{ path: f.path, ...(c ? { comment: f.comment } : {}), ...(s ? { sources: f.sources.map((x) => ({ ...plain(x), url: x.url.trim() })) } : {}) }];
    });
    if (changed.length > 0) edits.files = changed;
    if (Object.keys(edits).length === 0) return onClose();
    await run(() => onSave(edits));
  };

  return (
    <Modal
      open
      wide
      title="Edit seed"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={<ModalActions onCancel={onClose} submitLabel={busy ? 'Saving…' : 'Save seed'} disabled={busy} />}
    >
      <TextArea label="Comment" value={comment} rows={3} onChange={setComment} />
      <TextArea label="Trackers" value={trackers} rows={3} onChange={setTrackers} error={trackerError} hint="One announce URL per line; empty removes them all." />
      <h3>Files</h3>
      {preview.files.length > MAX_FILES && <p className="muted small">The first {MAX_FILES} files can be edited here.</p>}
      {files.map((f, i) => (
        <fieldset key={f.path} className="file-edit">
          <legend className="wrap-anywhere">{f.path}</legend>
          <TextArea label={`Comment for ${f.path}`} value={f.comment} rows={2} onChange={(v) => setFiles(files.map((x, j) => (j === i ? { ...x, comment: v } : x)))} />
          <div className="field-label">Sources</div>
          <SourcesEditor file={f} onChange={(sources) => setFiles(files.map((x, j) => (j === i ? { ...x, sources } : x)))} />
        </fieldset>
      ))}
      <InlineError error={error} />
    </Modal>
  );
}
