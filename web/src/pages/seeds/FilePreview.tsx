/**
 * A stored file's own preview (`<FilePreview path onClose/>`): images, audio and video inline,
 * small text files as text, anything else with open/download links. A seed file opens its
 * seed preview instead (the caller decides that).
 */
import { useQuery } from '@tanstack/react-query';
import { errorMessage } from '../../api.js';
import { Modal } from '../../components/Modal.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { extension, formatBytes, formatDate } from '../../lib/format.js';
import { useFileInfo } from '../../lib/queries.js';
import type { Obj } from '../../types.js';

const IMAGE = ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'bmp', 'svg'];
const VIDEO = ['mp4', 'webm', 'ogv', 'mov', 'm4v'];
const AUDIO = ['mp3', 'ogg', 'oga', 'wav', 'flac', 'm4a', 'opus'];
const TEXT = ['txt', 'md', 'log', 'json', 'csv', 'tsv', 'xml', 'yml', 'yaml', 'ini', 'conf', 'toml', 'ts', 'js', 'py', 'sh', 'c', 'h', 'go', 'rs', 'html', 'css', 'nfo', 'srt'];
const TEXT_LIMIT = 256 * 1024;

type Got = Obj & { raw_url: string };

/** A small text file's content, read through its `raw_url`. */
const readText = (url: string, signal: AbortSignal) => fetch(url, { signal }).then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))));

function Body({ obj }: { obj: Got }) {
  const ext = extension(obj.name);
  const isText = TEXT.includes(ext) && obj.size <= TEXT_LIMIT;
  const got = useQuery({ queryKey: ['raw', obj.raw_url], queryFn: ({ signal }) => readText(obj.raw_url, signal), enabled: isText, retry: false });
  const text = got.data ?? null;
  const error = got.error ? errorMessage(got.error) : null;
  if (IMAGE.includes(ext)) return <img className="file-preview-media" src={obj.raw_url} alt={obj.name} />;
  if (VIDEO.includes(ext)) return <video className="file-preview-media" src={obj.raw_url} controls preload="metadata" />;
  if (AUDIO.includes(ext)) return <audio src={obj.raw_url} controls preload="metadata" />;
  if (isText) return error ? <InlineError error={error} /> : text === null ? <Spinner /> : <pre className="file-preview-text">{text}</pre>;
  return <p className="muted">No inline preview for this kind of file. Open or download it below.</p>;
}

export function FilePreview({ path, onClose }: { path: string; onClose: () => void }) {
  const info = useFileInfo(path);
  const obj = (info.data as Got | undefined) ?? null;
  const error = info.error ? errorMessage(info.error) : null;
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
