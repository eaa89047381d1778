/**
 * The seed wizard for files and folders: `<SeedWizard paths onClose/>`. Preflight with
 * `/api/fs/seed/capabilities` (known hashes pre-ticked, downloads and streamability per file,
 * derived name, offered trackers), then `/api/fs/seed/generate`; a large job becomes a
 * background task shown live here and in the tasks panel.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { CheckboxField, TextArea, TextField } from '../../components/Field.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { formatBytes } from '../../lib/format.js';
import { useSession } from '../../session.js';
import { FormatPicker, HashMatrixGrid, PieceSizeField } from '../files/SeedOptions.js';
import { FolderField, folderProblem } from './FolderField.js';
import { failureOf, generateSeed, seedCapabilities, type Capabilities, type Failure, type GenerateResult } from './seedApi.js';
import { WizardFiles } from './WizardFiles.js';
import { WizardResult } from './WizardResult.js';
import {
  buildBody,
  commonParent,
  defaultFormats,
  effectiveMatrix,
  matrixEmpty,
  needsDownload,
  trackersProblem,
  typedNameProblem,
  type WizardState,
} from './wizardModel.js';


function initialState(caps: Capabilities, settings: Record<string, string>): WizardState {
  return {
    formats: defaultFormats(settings),
    matrix: structuredClone(caps.default_matrix),
    pieceSize: null,
    name: '',
    comment: '',
    trackers: [...caps.trackers],
    extraTrackers: '',
    outputDir: '',
    files: Object.fromEntries(caps.files.map((f) => [f.path, { comment: '', share: false, direct: false }])),
  };
}

export function SeedWizard({ paths, onClose }: { paths: string[]; onClose: () => void }) {
  const { settings } = useSession();
  const [s, setS] = useState<WizardState | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<GenerateResult | null>(null);
  const [tried, setTried] = useState(false);
  const key = paths.join('\n');

  // The preflight, once per set of paths (no cache: the drive's answer may change between openings).
  const preflight = useQuery({ queryKey: ['seed', 'capabilities', key], queryFn: () => seedCapabilities(key.split('\n')), staleTime: Infinity, gcTime: 0, retry: false });
  const caps = preflight.data ?? null;
  const loadError = preflight.error ? failureOf(preflight.error) : null;
  useEffect(() => {
    if (caps) setS(initialState(caps, settings));
    // Settings only seed the initial formats: a late settings load must not reset the form.
  }, [caps]); // eslint-disable-line react-hooks/exhaustive-deps

  const matrix = useMemo(() => (s ? effectiveMatrix(s.matrix, s.formats) : null), [s]);
  if (loadError) {
    return (
      <div className="card">
        <InlineError error={loadError.message} />
        {loadError.hint && <p className="hint-box">{loadError.hint}</p>}
        <button type="button" className="btn" onClick={onClose}>
          Back
        </button>
      </div>
    );
  }
  if (!caps || !s || !matrix) return <Spinner label="Checking the files…" />;
  if (result) return <WizardResult result={result} onClose={onClose} />;

  const set = (patch: Partial<WizardState>) => {
    setS({ ...s, ...patch });
    setFailure(null);
  };
  const defaultOutput = commonParent(caps.files.map((f) => f.path));
  const derived = caps.suggested_name;
  const effectiveName = s.name === '' ? derived : s.name.trim();
  const nameError = typedNameProblem(s.name, derived);
  const trackerError = trackersProblem(s.extraTrackers);
  const folderError = folderProblem(s.outputDir);
  const formatError = s.formats.length === 0 ? 'Choose at least one format.' : null;
  const downloads = caps.files.filter((f) => needsDownload(f, matrix));
  const blocked = downloads.filter((f) => !f.streamable);
  const problems = [formatError, nameError, trackerError, folderError].filter(Boolean);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (problems.length > 0) return;
    setBusy(true);
    setFailure(null);
    try {
      setResult(await generateSeed(buildBody(paths, s, defaultOutput)));
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="wizard stack" onSubmit={(e) => void submit(e)} noValidate aria-label="Seed wizard">
      <div className="card">
        <div className="section-title">
          <h2>Files</h2>
          <span className="muted small">
            {caps.files.length} {caps.files.length === 1 ? 'file' : 'files'} · {formatBytes(caps.total_size)}
            {downloads.length > 0 ? ` · ${formatBytes(downloads.reduce((n, f) => n + f.size, 0))} to read` : ' · nothing to read'}
          </span>
        </div>
        <WizardFiles files={caps.files} matrix={matrix} choices={s.files} onChange={(p, c) => set({ files: { ...s.files, [p]: c } })} />
      </div>

      <div className="card">
        <h2>Formats and hashes</h2>
        <div className="grid-2">
          <div>
            <FormatPicker value={s.formats} onChange={(formats) => set({ formats })} />
            {tried && formatError && <div className="field-error" role="alert">{formatError}</div>}
            <PieceSizeField value={s.pieceSize} formats={s.formats} onChange={(pieceSize) => set({ pieceSize })} />
          </div>
          <div>
            <HashMatrixGrid value={s.matrix} formats={s.formats} onChange={(m) => set({ matrix: m })} available={new Set(caps.common_hashes)} />
            <p className="field-hint">
              {caps.common_hashes.length > 0
                ? `Pre-ticked: the hashes the drive already knows (${caps.common_hashes.join(', ')}) — no download needed for those.`
                : 'The drive knows no hashes for these files; they will be read once.'}
              {matrixEmpty(matrix) && ' Nothing ticked: the site default hash selection is used.'}
            </p>
          </div>
        </div>
        {blocked.length > 0 && (
          <div className="warn-box" role="status">
            <strong>{blocked.length === 1 ? `${blocked[0]!.seed_path} must be downloaded` : `${blocked.length} files must be downloaded`}</strong>, but the storage{' '}
            {[...new Set(blocked.map((f) => f.storage))].join(', ')} does not let the server stream files. Select only the hashes it already knows, or ask an
            admin to turn on proxy for that storage.
          </div>
        )}
      </div>

      <div className="card">
        <h2>Details</h2>
        <div className="grid-2">
          <TextField
            label="Seed name"
            value={s.name}
            placeholder={derived}
            onChange={(name) => set({ name })}
            error={nameError}
            hint={s.name === '' ? `Derived from the files: “${derived}”. Type to change it.` : `Files: ${s.formats.map((f) => `${effectiveName}.${f}`).join(', ')}`}
          />
          <FolderField
            label="Output folder"
            value={s.outputDir}
            placeholder={defaultOutput}
            onChange={(outputDir) => set({ outputDir })}
            error={folderError}
            hint={`Where the seed files are written. Empty: ${defaultOutput}`}
          />
        </div>
        <TextArea label="Comment" value={s.comment} rows={3} onChange={(comment) => set({ comment })} hint="Shown in the seed's preview; several lines are fine." />
        <fieldset>
          <legend>Trackers</legend>
          {caps.trackers.length === 0 && <p className="muted small">No default trackers are configured (setting seed_default_trackers).</p>}
          {caps.trackers.map((t) => (
            <CheckboxField
              key={t}
              label={<span className="mono">{t}</span>}
              checked={s.trackers.includes(t)}
              onChange={(on) => set({ trackers: on ? [...s.trackers, t] : s.trackers.filter((x) => x !== t) })}
            />
          ))}
          <TextArea label="Other trackers" value={s.extraTrackers} rows={2} onChange={(extraTrackers) => set({ extraTrackers })} error={trackerError} hint="One announce URL per line (http, https or udp)." />
        </fieldset>
      </div>

      {caps.async && (
        <p className="info-box">
          These files total {formatBytes(caps.total_size)}, over the background threshold of {formatBytes(caps.async_threshold)}: the seed is made by a background task you
          can follow in Tasks.
        </p>
      )}
      {failure && (
        <div className="error-box" role="alert">
          <p>
            <strong>The seed was not created.</strong> {failure.message}
          </p>
          {failure.hint && <p className="hint-box">{failure.hint}</p>}
        </div>
      )}
      {tried && problems.length > 0 && <InlineError error="Fix the fields marked above first." />}
      <div className="row wizard-actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : caps.async ? 'Start background task' : 'Create seed'}
        </button>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
