/**
 * A stored file's own preview (`<FilePreview path onClose/>`): images, audio and video inline,
 * small text files as text, anything else with open/download links. A seed file opens its
 * seed preview instead (the caller decides that).
 */
import { useEffect, useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { Modal } from '../../components/Modal.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { extension, formatBytes, formatDate } from '../../lib/format.js';
import type { Obj } from '../../types.js';

const IMAGE = ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'bmp', 'svg'];
const VIDEO = ['mp4', 'webm', 'ogv', 'mov', 'm4v'];
const AUDIO = ['mp3', 'ogg', 'oga', 'wav', 'flac', 'm4a', 'opus'];
const TEXT = ['txt', 'md', 'log', 'json', 'csv', 'tsv', 'xml', 'yml', 'yaml', 'ini', 'conf', 'toml', 'ts', 'js', 'py', 'sh', 'c', 'h', 'go', 'rs', 'html', 'css', 'nfo', 'srt'];
const TEXT_LIMIT = 256 * 1024;

type Got = Obj & { raw_url: string };

function Body({ obj }: { obj: Got }) {
  const ext = extension(obj.name);
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const isText = TEXT.includes(ext) && obj.size <= TEXT_LIMIT;
  useEffect(() => {
    if (!isText) return;
    let live = true;
    fetch(obj.raw_url)
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((t) => live && setText(t))
      .catch((e) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [obj.raw_url, isText]);
  if (IMAGE.includes(ext)) return <img className="file-preview-media" src={obj.raw_url} alt={obj.name} />;
  if (VIDEO.includes(ext)) return <video className="file-preview-media" src={obj.raw_url} controls preload="metadata" />;
  if (AUDIO.includes(ext)) return <audio src={obj.raw_url} controls preload="metadata" />;
  if (isText) return error ? <InlineError error={error} /> : text === null ? <Spinner /> : <pre className="file-preview-text">{text}</pre>;
  return <p className="muted">No inline preview for this kind of file. Open or download it below.</p>;
}

export function FilePreview({ path, onClose }: { path: string; onClose: () => void }) {
  const [obj, setObj] = useState<Got | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api
      .post<Got>('/api/fs/get', { path })
      .then((o) => live && setObj(o))
      .catch((e) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [path]);
  return (
    <Modal
      open
      wide
      title={obj?.name ?? 'File preview'}
      onClose={onClose}
      footer={
        <>
          {obj && (
            <>
              <a className="btn" href={obj.raw_url} target="_blank" rel="noopener noreferrer">
                Open in a new tab
              </a>
              <a className="btn" href={obj.raw_url} download={obj.name}>
                Download
              </a>
            </>
          )}
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Close
          </button>
        </>
      }
    >
      {error ? (
        <InlineError error={error} />
      ) : !obj ? (
        <Spinner />
      ) : (
        <div className="file-preview" data-path={path}>
          <p className="muted small">
            {path} · {formatBytes(obj.size)} · modified {formatDate(obj.modified)}
          </p>
          <Body obj={obj} />
        </div>
      )}
    </Modal>
  );
}
