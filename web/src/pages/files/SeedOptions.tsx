/**
 * Reusable seed option controls (upload sidecar panel here; the seed wizard too):
 * `<FormatPicker value onChange/>`, `<HashMatrixGrid value onChange formats/>`,
 * `<PieceSizeField value onChange formats/>`, and `parseMatrix(json)` for `seed_default_matrix`.
 * What a format forces (contract §10.1) is shown ticked and locked: torrent → sha1 pieces;
 * cas → md5 whole + pieces and 10 MiB pieces.
 */
import { useId } from 'react';
import type { HashMatrix, HashName, SeedFormat } from '../../types.js';
import { formatBytes } from '../../lib/format.js';

export const FORMATS: readonly { id: SeedFormat; label: string; hint: string }[] = [
  { id: 'oss', label: '.oss', hint: 'Ferry/OpenList sharing seed (JSON)' },
  { id: 'torrent', label: '.torrent', hint: 'BitTorrent v1' },
  { id: 'cas', label: '.cas', hint: 'Cloud rapid-upload (MD5)' },
];
export const HASHES: readonly HashName[] = ['md5', 'sha1', 'sha256'];
export const CAS_PIECE_SIZE = 10 * 1024 * 1024;
/** 16 KiB … 64 MiB (powers of two) — the range the server accepts. */
export const PIECE_SIZES: readonly number[] = Array.from({ length: 13 }, (_, i) => 16 * 1024 * 2 ** i);

const ALL_WHOLE: HashMatrix = { md5: { whole: true, pieces: false }, sha1: { whole: true, pieces: false }, sha256: { whole: true, pieces: false } };

/** A hash matrix from a JSON string (the `seed_default_matrix` setting); malformed → whole hashes only. */
export function parseMatrix(json: string | undefined): HashMatrix {
  try {
    const raw = JSON.parse(json ?? '') as Record<string, { whole?: unknown; pieces?: unknown }>;
    const m = {} as HashMatrix;
    for (const h of HASHES) m[h] = { whole: raw[h]?.whole === true, pieces: raw[h]?.pieces === true };
    return m;
  } catch {
    return structuredClone(ALL_WHOLE);
  }
}

/** Cells a format forces on. */
export function forcedCells(formats: readonly SeedFormat[]): Set<string> {
  const s = new Set<string>();
  if (formats.includes('torrent')) s.add('sha1.pieces');
  if (formats.includes('cas')) {
    s.add('md5.whole');
    s.add('md5.pieces');
  }
  return s;
}

export function FormatPicker({ value, onChange, legend = 'Formats' }: { value: SeedFormat[]; onChange: (v: SeedFormat[]) => void; legend?: string }) {
  const id = useId();
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div className="chips">
        {FORMATS.map((f) => (
          <div key={f.id} className="field field-check">
            <input
              id={`${id}-${f.id}`}
              type="checkbox"
              checked={value.includes(f.id)}
              onChange={(e) => onChange(e.target.checked ? [...value, f.id] : value.filter((x) => x !== f.id))}
            />
            <label htmlFor={`${id}-${f.id}`} title={f.hint}>
              {f.label} <span className="muted small">{f.hint}</span>
            </label>
          </div>
        ))}
      </div>
    </fieldset>
  );
}

export function HashMatrixGrid({
  value,
  onChange,
  formats,
  available,
}: {
  value: HashMatrix;
  onChange: (v: HashMatrix) => void;
  formats: readonly SeedFormat[];
  /** Optional: hashes the drive already provides, marked in the grid. */
  available?: ReadonlySet<HashName>;
}) {
  const forced = forcedCells(formats);
  const set = (h: HashName, k: 'whole' | 'pieces', on: boolean) => onChange({ ...value, [h]: { ...value[h], [k]: on } });
  return (
    <fieldset>
      <legend>Hashes</legend>
      <table className="matrix">
        <thead>
          <tr>
            <th scope="col">Hash</th>
            <th scope="col">Whole file</th>
            <th scope="col">Per piece</th>
          </tr>
        </thead>
        <tbody>
          {HASHES.map((h) => (
            <tr key={h}>
              <th scope="row">
                {h}
                {available?.has(h) && (
                  <span className="badge badge-ok" title="The storage already knows this hash" style={{ marginLeft: '0.4rem' }}>
                    known
                  </span>
                )}
              </th>
              {(['whole', 'pieces'] as const).map((k) => {
                const lock = forced.has(`${h}.${k}`);
                return (
                  <td key={k}>
                    <input
                      type="checkbox"
                      aria-label={`${h} ${k === 'whole' ? 'whole file' : 'per piece'}`}
                      checked={lock || value[h][k]}
                      disabled={lock}
                      title={lock ? 'Required by the selected formats' : undefined}
                      onChange={(e) => set(h, k, e.target.checked)}
                    />
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {forced.size > 0 && <p className="field-hint">Locked cells are required by the chosen formats.</p>}
    </fieldset>
  );
}

export function PieceSizeField({ value, onChange, formats }: { value: number | null; onChange: (v: number | null) => void; formats: readonly SeedFormat[] }) {
  const id = useId();
  const cas = formats.includes('cas');
  return (
    <div className="field">
      <label htmlFor={id}>Piece size</label>
      <select id={id} value={cas ? String(CAS_PIECE_SIZE) : value === null ? '' : String(value)} disabled={cas} onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}>
        {cas ? (
          <option value={String(CAS_PIECE_SIZE)}>{formatBytes(CAS_PIECE_SIZE)} (required by .cas)</option>
        ) : (
          <>
            <option value="">Automatic</option>
            {PIECE_SIZES.map((n) => (
              <option key={n} value={String(n)}>
                {formatBytes(n)}
              </option>
            ))}
          </>
        )}
      </select>
      <div className="field-hint">{cas ? '.cas seeds always use 10 MiB pieces.' : 'Used for per-piece hashes and .torrent pieces.'}</div>
    </div>
  );
}
