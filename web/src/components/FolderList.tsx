/**
 * The folders inside `dir` (`/api/fs/dirs`) as a list of buttons, with loading, empty and error
 * states: `<FolderList dir onOpen={(path) => …} isDisabled={(path) => …}/>`.
 */
import { useEffect, useState } from 'react';
import { api, errorMessage } from '../api.js';
import { joinPath } from '../lib/format.js';
import { InlineError, Spinner } from './ui.js';

export function FolderList({ dir, onOpen, isDisabled }: { dir: string; onOpen: (path: string) => void; isDisabled?: (path: string) => boolean }) {
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
  return (
    <>
      {dirs === null ? (
        <Spinner />
      ) : dirs.length === 0 ? (
        <p className="muted small">No folders inside.</p>
      ) : (
        <ul className="picker-list">
          {dirs.map((d) => {
            const p = joinPath(dir, d.name);
            return (
              <li key={d.name}>
                <button type="button" disabled={isDisabled?.(p)} onClick={() => onOpen(p)}>
                  📁 {d.name}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <InlineError error={error} />
    </>
  );
}
