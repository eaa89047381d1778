/**
 * Operations on the seed's files: save them into a folder (rapid upload, offline download,
 * transfer through a relay folder) and recalculate the seed from the stored files. Each
 * reports its result per file through `onReport`.
 */
import { useState } from 'react';
import { CheckboxField } from '../../components/Field.js';
import { useToast } from '../../components/Toast.js';
import { formatBytes, parentPath } from '../../lib/format.js';
import type { HashMatrix } from '../../types.js';
import { HashMatrixGrid, HASHES, PieceSizeField } from '../files/SeedOptions.js';
import { FolderField, folderProblem } from './FolderField.js';
import { outcomesOfSave, type FileOutcome, type OpReport } from './OpResults.js';
import { saveFiles, updateSeed, type Capability, type Preview, type SaveMode } from './seedApi.js';

/** The hashes the seed carries (a file having one counts). */
function carriedMatrix(p: Preview): HashMatrix {
  const m = {} as HashMatrix;
  for (const h of HASHES) m[h] = { whole: p.files.some((f) => f.hashes[h]), pieces: p.files.some((f) => f.pieces[h]?.length) };
  return m;
}

function Availability({ c }: { c: Capability }) {
  if (c.available && !c.reason) return null;
  return <p className={c.available ? 'field-hint' : 'field-hint unavailable'}>{c.reason}</p>;
}

type Op = SaveMode | 'transfer' | 'recalculate';

/** The three ways to save the files, in the order shown (the first is the primary button). */
const SAVE_BUTTONS = [
  { op: 'rapid_upload', label: 'Rapid upload', busyLabel: 'Rapid uploading…' },
  { op: 'offline_download', label: 'Offline download', busyLabel: 'Queuing…' },
  { op: 'transfer', label: 'Transfer', busyLabel: 'Transferring…' },
] as const;

export function PreviewOperations({ preview, onReport, onUpdated }: { preview: Preview; onReport: (r: OpReport) => void; onUpdated: (p: Preview) => void }) {
  const toast = useToast();
  const seedPath = preview.path!;
  const home = parentPath(seedPath);
  const [dest, setDest] = useState('');
  const [relay, setRelay] = useState('');
  const [overwrite, setOverwrite] = useState(false);
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const [busy, setBusy] = useState<Op | null>(null);
  const [recalcPath, setRecalcPath] = useState(preview.capabilities.recalculate.path ?? '');
  const [matrix, setMatrix] = useState<HashMatrix>(() => carriedMatrix(preview));
  const [pieceSize, setPieceSize] = useState<number | null>(null);
  const [tried, setTried] = useState<Op | null>(null);
  const caps = preview.capabilities;
  const destError = folderProblem(dest);
  const relayError = folderProblem(relay) ?? (tried === 'transfer' && relay.trim() === '' ? 'Choose the relay folder for a transfer.' : null);
  const files = picked ? [...picked] : undefined;

  const run = async (op: Op, what: () => Promise<OpReport>) => {
    setBusy(op);
    try {
      onReport(await what());
    } catch (e) {
      toast.error(e);
    } finally {
      setBusy(null);
    }
  };

  const save = (mode: SaveMode, transfer = false) => {
    setTried(transfer ? 'transfer' : mode);
    if (destError || (transfer && (relay.trim() === '' || folderProblem(relay)))) return;
    const title = transfer ? 'Transfer' : mode === 'rapid_upload' ? 'Rapid upload' : 'Offline download';
    void run(transfer ? 'transfer' : mode, async () => ({
      title,
      outcomes: outcomesOfSave(await saveFiles(mode, seedPath, preview.format, { dest: dest.trim() || home, files, overwrite, transit_path: transfer ? relay.trim() : undefined })),
    }));
  };

  const recalc = () =>
    run('recalculate', async () => {
      const before = new Map(preview.files.map((f) => [f.path, f.hashes]));
      const r = await updateSeed(seedPath, { recalculate: { path: recalcPath.trim() || home, hash_matrix: matrix, ...(pieceSize && preview.format !== 'cas' ? { piece_size: pieceSize } : {}) } });
      onUpdated(r);
      const outcomes: FileOutcome[] = r.files.map((f) => {
        const old = before.get(f.path) ?? {};
        const changed = HASHES.filter((h) => old[h] && f.hashes[h] && old[h] !== f.hashes[h]);
        return {
          path: f.path,
          ok: changed.length === 0,
          method: 'recalculated',
          detail: changed.length === 0 ? `hashes: ${HASHES.filter((h) => f.hashes[h]).join(', ') || 'none'}` : `content differs from the seed (${changed.join(', ')} changed)`,
        };
      });
      return { title: `Recalculated from ${r.recalculated?.path ?? recalcPath}`, outcomes };
    });

  const list = preview.files.slice(0, 200);
  return (
    <div className="stack">
      <div className="card">
        <h2>Save the files</h2>
        <p className="muted small">Rapid upload copies content already stored on a storage you can read (no bytes from outside); offline download fetches the seed's sources in the background; a transfer downloads into a relay folder and copies from there.</p>
        <div className="grid-2">
          <FolderField label="Destination folder" value={dest} placeholder={home} onChange={setDest} error={destError} hint={`Files land at <folder>/<path in seed>. Empty: ${home}`} />
          <FolderField label="Relay folder (transfer)" value={relay} onChange={setRelay} error={tried === 'transfer' ? relayError : folderProblem(relay)} hint="Only for a transfer." />
        </div>
        <CheckboxField label="Replace files that already exist" checked={overwrite} onChange={setOverwrite} />
        {preview.files.length > 1 && (
          <fieldset>
            <legend>Files</legend>
            <CheckboxField label="All files" checked={picked === null} onChange={(on) => setPicked(on ? null : new Set())} />
            {picked !== null && (
              <div className="file-picks">
                {list.map((f) => (
                  <CheckboxField
                    key={f.path}
                    label={f.path}
                    checked={picked.has(f.path)}
                    onChange={(on) => {
                      const n = new Set(picked);
                      if (on) n.add(f.path);
                      else n.delete(f.path);
                      setPicked(n);
                    }}
                  />
                ))}
              </div>
            )}
          </fieldset>
        )}
        <div className="op-buttons">
          {SAVE_BUTTONS.map((b) => (
            <div key={b.op}>
              <button
                type="button"
                className={b.op === 'rapid_upload' ? 'btn btn-primary' : 'btn'}
                disabled={busy !== null || !caps[b.op].available || picked?.size === 0}
                onClick={() => save(b.op === 'rapid_upload' ? 'rapid_upload' : 'offline_download', b.op === 'transfer')}
              >
                {busy === b.op ? b.busyLabel : b.label}
              </button>
              <Availability c={caps[b.op]} />
            </div>
          ))}
        </div>
      </div>

      <div className="card">
        <h2>Recalculate</h2>
        <p className="muted small">Re-reads the stored files and rewrites this seed's hashes with the selection below (the seed file is saved in place).</p>
        <FolderField label="Folder holding the files" value={recalcPath} placeholder={home} onChange={setRecalcPath} error={folderProblem(recalcPath)} />
        <div className="grid-2">
          <HashMatrixGrid value={matrix} onChange={setMatrix} formats={[preview.format]} />
          <div>
            <PieceSizeField value={pieceSize} onChange={setPieceSize} formats={[preview.format]} />
            <p className="field-hint">Automatic keeps the seed's piece size ({formatBytes(preview.piece_size)}).</p>
          </div>
        </div>
        <button type="button" className="btn" disabled={busy !== null || !caps.recalculate.available || folderProblem(recalcPath) !== null} onClick={() => void recalc()}>
          {busy === 'recalculate' ? 'Recalculating…' : 'Recalculate'}
        </button>
        <Availability c={caps.recalculate.available ? { available: true } : caps.recalculate} />
      </div>
    </div>
  );
}
