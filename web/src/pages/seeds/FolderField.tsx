/**
 * A folder path field with an inline browser (`/api/fs/dirs`): type a path, or open
 * "Browse" and pick a folder. `<FolderField label value onChange hint error/>`.
 */
import { useId, useState } from 'react';
import { FieldFrame } from '../../components/Field.js';
import { FolderList } from '../../components/FolderList.js';
import { Breadcrumb } from '../files/Breadcrumb.js';

function FolderBrowser({ start, onPick }: { start: string; onPick: (p: string) => void }) {
  const [dir, setDir] = useState(start || '/');
  const go = (p: string) => {
    setDir(p);
    onPick(p);
  };
  return (
    <div className="folder-browser">
      <Breadcrumb path={dir} onNavigate={go} />
      <FolderList dir={dir} onOpen={go} />
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
  const browserId = useId();
  const [open, setOpen] = useState(false);
  return (
    <FieldFrame
      label={label}
      hint={hint}
      error={error}
      className="folder-field"
      after={
        open && (
          <div id={browserId}>
            <FolderBrowser start={value.trim() || placeholder || '/'} onPick={onChange} />
          </div>
        )
      }
    >
      {(control) => (
        <div className="folder-input">
          <input {...control} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
          <button type="button" className="btn" aria-expanded={open} aria-controls={browserId} onClick={() => setOpen(!open)}>
            {open ? 'Close' : 'Browse…'}
          </button>
        </div>
      )}
    </FieldFrame>
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
