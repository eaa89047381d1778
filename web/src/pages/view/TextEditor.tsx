/**
 * Editing a text file in the viewer: the whole file (≤ EDIT_LIMIT) in a textarea, saved through the
 * normal upload path (`PUT /api/fs/put`, no sidecar headers, so the storage's seed policy decides about
 * sidecars) with `If-Match` = the ETag the file had when it was opened. A 412 means someone changed
 * it meanwhile: nothing is overwritten, and the editor says so and offers to reload.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError, authHeaders, errorMessage, send } from '../../api.js';
import { useToast } from '../../components/Toast.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { formatBytes, parentPath } from '../../lib/format.js';
import { invalidateFolder } from '../../lib/queries.js';

export const EDIT_LIMIT = 5 * 1024 * 1024;

interface Opened {
  text: string;
  etag: string;
}

async function openForEdit(url: string, signal: AbortSignal): Promise<Opened> {
  const res = await fetch(url, { cache: 'no-store', signal });
  if (!res.ok) throw new Error(`reading the file failed (HTTP ${res.status})`);
  const etag = res.headers.get('etag');
  if (!etag) throw new Error('This storage gives no version tag (ETag) for the file, so it cannot be edited safely here.');
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length > EDIT_LIMIT) throw new Error(`The file is larger than ${formatBytes(EDIT_LIMIT)} and cannot be edited here.`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('The file is not UTF-8 text, so it cannot be edited here.');
  }
  return { text, etag };
}

function save(path: string, text: string, etag: string): Promise<void> {
  return send<void>('/api/fs/put', {
    method: 'PUT',
    headers: { ...authHeaders(), 'File-Path': encodeURIComponent(path), Overwrite: 'true', 'If-Match': etag, 'Content-Type': 'application/octet-stream' },
    body: new Blob([text]),
  });
}

export function TextEditor({ url, path, name, onDone }: { url: string; path: string; name: string; onDone: () => void }) {
  const qc = useQueryClient();
  const toast = useToast();
  const opened = useQuery({ queryKey: ['edit', url], queryFn: ({ signal }) => openForEdit(url, signal), gcTime: 0, staleTime: Infinity, retry: false });
  const [draft, setDraft] = useState<string | null>(null);
  useEffect(() => {
    if (opened.data) setDraft(opened.data.text);
  }, [opened.data]);
  const saving = useMutation({
    mutationFn: () => save(path, draft ?? '', opened.data!.etag),
    onSuccess: async () => {
      toast.success(`Saved “${name}”`);
      await invalidateFolder(qc, parentPath(path));
      onDone();
    },
  });
  const conflict = saving.error instanceof ApiError && saving.error.code === 412;

  if (opened.error) {
    return (
      <div className="card">
        <InlineError error={errorMessage(opened.error)} />
        <button type="button" className="btn btn-small" onClick={onDone}>
          Back to the file
        </button>
      </div>
    );
  }
  if (!opened.data || draft === null) return <Spinner label="Opening for editing…" />;
  const changed = draft !== opened.data.text;
  return (
    <form
      className="card viewer-editor"
      onSubmit={(e) => {
        e.preventDefault();
        saving.mutate();
      }}
    >
      <label htmlFor="editor-text" className="sr-only">
        Contents of {name}
      </label>
      <textarea id="editor-text" value={draft} spellCheck={false} onChange={(e) => setDraft(e.target.value)} disabled={saving.isPending} />
      {conflict ? (
        <div className="inline-error" role="alert">
          <strong>“{name}” was changed by someone else since you opened it.</strong> Nothing was saved, and their version is untouched. Copy
          your changes, then reload to edit the current version.{' '}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              saving.reset();
              void qc.resetQueries({ queryKey: ['edit', url] });
            }}
          >
            Reload the current version
          </button>
        </div>
      ) : (
        saving.error && <InlineError error={errorMessage(saving.error)} />
      )}
      <div className="viewer-editor-actions">
        <button type="submit" className="btn btn-primary" disabled={saving.isPending || conflict || !changed}>
          {saving.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="btn" onClick={onDone} disabled={saving.isPending}>
          Cancel
        </button>
        {changed && <span className="muted small">Unsaved changes</span>}
      </div>
    </form>
  );
}
