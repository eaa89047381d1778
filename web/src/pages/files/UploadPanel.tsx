/** Upload options (overwrite, sidecars with formats / hash matrix / piece size) and the per-file progress list. */
import { CheckboxField } from '../../components/Field.js';
import { formatBytes, formatSpeed } from '../../lib/format.js';
import type { HashMatrix, SeedFormat } from '../../types.js';
import { FormatPicker, HashMatrixGrid, PieceSizeField } from './SeedOptions.js';
import type { UploadItem } from './useUploads.js';

export interface UploadOptions {
  overwrite: boolean;
  sidecars: boolean;
  formats: SeedFormat[];
  matrix: HashMatrix;
  pieceSize: number | null;
}

export function UploadOptionsPanel({ value, onChange }: { value: UploadOptions; onChange: (v: UploadOptions) => void }) {
  return (
    <div className="card upload-options">
      <h2>Upload options</h2>
      <CheckboxField
        label="Replace files that already exist"
        hint="Off: uploading over an existing file fails and the existing file is kept."
        checked={value.overwrite}
        onChange={(overwrite) => onChange({ ...value, overwrite })}
      />
      <CheckboxField
        label="Create seed sidecars"
        hint="Writes <file>.oss / .torrent / .cas next to each uploaded file, hashed while it uploads. Off: the storage's seed policy decides."
        checked={value.sidecars}
        onChange={(sidecars) => onChange({ ...value, sidecars })}
      />
      {value.sidecars && (
        <div className="grid-2">
          <div>
            <FormatPicker value={value.formats} onChange={(formats) => onChange({ ...value, formats })} />
            <PieceSizeField value={value.pieceSize} formats={value.formats} onChange={(pieceSize) => onChange({ ...value, pieceSize })} />
          </div>
          <HashMatrixGrid value={value.matrix} formats={value.formats} onChange={(matrix) => onChange({ ...value, matrix })} />
        </div>
      )}
    </div>
  );
}

const STATUS_TEXT: Record<UploadItem['status'], string> = {
  queued: 'Waiting',
  uploading: 'Uploading',
  done: 'Done',
  failed: 'Failed',
  canceled: 'Canceled',
};

export function UploadList({ items, onCancel, onClear }: { items: UploadItem[]; onCancel: (id: number) => void; onClear: () => void }) {
  if (items.length === 0) return null;
  const finished = items.filter((x) => x.status !== 'queued' && x.status !== 'uploading').length;
  return (
    <section className="card uploads" aria-label="Uploads">
      <div className="section-title">
        <h2>
          Uploads <span className="muted small">{finished} of {items.length} finished</span>
        </h2>
        {finished > 0 && (
          <button type="button" className="btn btn-small" onClick={onClear}>
            Clear finished
          </button>
        )}
      </div>
      {items.map((x) => {
        const pct = x.size > 0 ? Math.min(100, Math.round((x.loaded / x.size) * 100)) : x.status === 'done' ? 100 : 0;
        return (
          <div key={x.id} className="upload-item" data-upload={x.name} data-status={x.status}>
            <div className="upload-name">{x.name}</div>
            <div className="upload-meta">
              <span className="upload-pct">{pct}%</span> · {formatBytes(x.loaded)} / {formatBytes(x.size)}
              {x.status === 'uploading' && x.speed > 0 && <> · {formatSpeed(x.speed)}</>}
              {x.status === 'done' && x.speed > 0 && <> · avg {formatSpeed(x.speed)}</>} · {STATUS_TEXT[x.status]}
              {(x.status === 'queued' || x.status === 'uploading') && (
                <button type="button" className="btn btn-small btn-ghost" onClick={() => onCancel(x.id)} aria-label={`Cancel ${x.name}`}>
                  Cancel
                </button>
              )}
            </div>
            <progress
              className={`progress ${x.status === 'done' ? 'done' : x.status === 'failed' ? 'failed' : ''}`}
              max={100}
              value={pct}
              aria-label={`${x.name} upload progress`}
            />
            {x.error && <div className="upload-error">{x.error}</div>}
          </div>
        );
      })}
    </section>
  );
}
