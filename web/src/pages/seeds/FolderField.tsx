/**
 * A folder path field with an inline browser (`/api/fs/dirs`): type a path, or open
 * "Browse" and pick a folder. `<FolderField label value onChange hint error/>`.
 */
import { useEffect, useId, useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { joinPath } from '../../lib/format.js';
import { Breadcrumb } from '../files/Breadcrumb.js';

function FolderBrowser({ start, onPick }: { start: string; onPick: (p: string) => void }) {
  const [dir, setDir] = useState(start || '/');
  const [dirs, setDirs] = useState<{ name: string }[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setDirs(null);
    setError(null);
    api
      .post<{ name: string }[] | null>('/api/fs/dirs', { path: dir })
      .then((d) => live && setDirs(d ?? []))
      .catch((e) => {
        if (!live) return;
        setDirs([]);
        setError(errorMessage(e));
      });
    return () => {
      live = false;
    };
  }, [dir]);
  const go = (p: string) => {
    setDir(p);
    onPick(p);
  };
  return (
    <div className="folder-browser">
      <Breadcrumb path={dir} onNavigate={go} />
      {dirs === null ? (
        <Spinner />
      ) : dirs.length === 0 ? (
        <p className="muted small">No folders inside.</p>
      ) : (
        <ul className="picker-list">
          {dirs.map((d) => (
            <li key={d.name}>
              <button type="button" onClick={() => go(joinPath(dir, d.name))}>
                📁 {d.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <InlineError error={error} />
    </div>
  );
}

export function FolderField({
  label,
  value,
  onChange,
  hint,
  error,
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  hint?: string;
  error?: string | null;
  placeholder?: string;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  return (
    <div className="field folder-field">
      <label htmlFor={id}>{label}</label>
      <div className="folder-input">
        <input
          id={id}
          value={value}
          placeholder={placeholder}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={[hint ? `${id}-hint` : '', error ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined}
        />
        <button type="button" className="btn" aria-expanded={open} aria-controls={`${id}-browser`} onClick={() => setOpen(!open)}>
          {open ? 'Close' : 'Browse…'}
        </button>
      </div>
      {hint && (
        <div className="field-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={`${id}-err`} role="alert">
          {error}
        </div>
      )}
      {open && (
        <div id={`${id}-browser`}>
          <FolderBrowser start={value.trim() || placeholder || '/'} onPick={onChange} />
        </div>
      )}
    </div>
  );
}

/** A problem with a folder path typed by hand, or null. */
export function folderProblem(p: string): string | null {
  const v = p.trim();
  if (v === '') return null;
  if (!v.startsWith('/')) return 'Start the folder path with /.';
  if (v.split('/').some((s) => s === '.' || s === '..')) return 'A folder path cannot contain . or .. segments.';
  return null;
}
