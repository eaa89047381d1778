/** Text and code: highlighted, read in parts with "Load more". */
import hljs from 'highlight.js/lib/common';
import { useCallback, useEffect, useState } from 'react';
import { errorMessage } from '../../api.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { formatBytes } from '../../lib/format.js';
import { languageOf } from '../../lib/fileKinds.js';
import { readRange } from '../../lib/ranges.js';
import type { Obj } from '../../types.js';
import { EDIT_LIMIT, TextEditor } from './TextEditor.js';
import 'highlight.js/styles/github.css';

/** Bytes read per part; highlighting stops past HIGHLIGHT_LIMIT characters (plain text from there). */
export const TEXT_PART = 256 * 1024;
const HIGHLIGHT_LIMIT = 512 * 1024;

/**
 * `editPath`: where an edit is saved, given when the viewer may write; files up to EDIT_LIMIT then get
 * an Edit button. The reader is keyed by size and time, so a saved edit (the listing refetched) shows at once.
 */
export function TextView({ url, obj, editPath }: { url: string; obj: Obj; editPath?: string }) {
  const [editing, setEditing] = useState(false);
  if (editing && editPath) return <TextEditor url={url} path={editPath} name={obj.name} onDone={() => setEditing(false)} />;
  const toolbar = editPath && (
    <div className="viewer-toolbar" role="toolbar" aria-label="Text">
      {obj.size <= EDIT_LIMIT ? (
        <button type="button" className="btn btn-small" onClick={() => setEditing(true)}>
          Edit
        </button>
      ) : (
        <span className="muted small">Files over {formatBytes(EDIT_LIMIT)} cannot be edited here.</span>
      )}
    </div>
  );
  return <TextReader key={`${obj.size}:${obj.modified}`} url={url} obj={obj} toolbar={toolbar} />;
}

function TextReader({ url, obj, toolbar }: { url: string; obj: Obj; toolbar: React.ReactNode }) {
  const [bytes, setBytes] = useState<Uint8Array>(new Uint8Array(0));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const more = useCallback(async () => {
    setBusy(true);
    try {
      const part = await readRange(url, bytes.length, Math.min(obj.size, bytes.length + TEXT_PART));
      const all = new Uint8Array(bytes.length + part.length);
      all.set(bytes);
      all.set(part, bytes.length);
      setBytes(all);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }, [url, obj.size, bytes]);
  useEffect(() => {
    if (obj.size > 0) void more();
    // the first part only; later parts on request
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [url]);

  // a multi-byte character cut at the part's end shows as U+FFFD until the next part arrives
  const text = new TextDecoder('utf-8').decode(bytes);
  const lang = languageOf(obj.name);
  const html = text.length <= HIGHLIGHT_LIMIT && lang && hljs.getLanguage(lang) ? hljs.highlight(text, { language: lang, ignoreIllegals: true }).value : null;
  if (error) return <div className="card"><InlineError error={error} /></div>;
  if (obj.size > 0 && bytes.length === 0) return <Spinner />;
  return (
    <div className="card viewer-text">
      {toolbar}
      <pre>
        {html !== null ? <code className={`hljs language-${lang}`} dangerouslySetInnerHTML={{ __html: html }} /> : <code>{text}</code>}
      </pre>
      {bytes.length < obj.size && (
        <p className="viewer-more">
          Showing {formatBytes(bytes.length)} of {formatBytes(obj.size)}.{' '}
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => void more()}>
            Load more
          </button>
        </p>
      )}
    </div>
  );
}

