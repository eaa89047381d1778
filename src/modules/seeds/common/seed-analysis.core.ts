/** The pure half of seed analysis, run inline or on a worker thread (seed-analysis.ts). */
import { allConversions, decodeAny, diagnose, SEED_FORMATS, SeedFormatError, type DecodedSeed, type MissingData, type SeedDiagnostic, type SeedFormat } from '../formats/index.js';

/** What each container lacks; `missing` lists at most MISSING_KEPT files, `missing_total` counts them all. */
export type Conversions = Record<SeedFormat, { feasible: boolean; missing: MissingData[]; missing_total: number }>;

/** Files listed as missing data per container (a hostile seed may miss hashes for 100,000 files). */
export const MISSING_KEPT = 100;

function keepSome(all: ReturnType<typeof allConversions>): Conversions {
  const out = {} as Conversions;
  for (const f of SEED_FORMATS) out[f] = { feasible: all[f].feasible, missing: all[f].missing.slice(0, MISSING_KEPT), missing_total: all[f].missing.length };
  return out;
}

export type AnalyzeRequest =
  | { op: 'bytes'; bytes: Uint8Array; filename?: string; format?: SeedFormat; now?: number; maxFiles: number }
  | { op: 'model'; decoded: DecodedSeed };

/** Diagnostics kept per code (and format); the rest are counted in one summary line. */
export const DIAGNOSTICS_PER_CODE = 100;

/** At most DIAGNOSTICS_PER_CODE diagnostics of one code; then one line saying how many more files. */
export function summarize(diags: SeedDiagnostic[]): SeedDiagnostic[] {
  const seen = new Map<string, number>();
  const out: SeedDiagnostic[] = [];
  for (const d of diags) {
    const key = `${d.code}\0${d.format ?? ''}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n <= DIAGNOSTICS_PER_CODE) out.push(d);
  }
  for (const [key, n] of seen) {
    if (n <= DIAGNOSTICS_PER_CODE) continue;
    const first = diags.find((d) => `${d.code}\0${d.format ?? ''}` === key)!;
    out.push({ level: first.level, code: first.code, format: first.format, message: `and ${n - DIAGNOSTICS_PER_CODE} more files with the same finding` });
  }
  return out;
}

export function analyzeDecoded(decoded: DecodedSeed): { decoded: DecodedSeed; conversions: Conversions; diagnostics: SeedDiagnostic[] } {
  return { decoded, conversions: keepSome(allConversions(decoded.seed, { torrentPieces: decoded.torrent_pieces })), diagnostics: summarize(diagnose(decoded)) };
}

export function analyzeBytes(req: Extract<AnalyzeRequest, { op: 'bytes' }>) {
  const decoded = decodeAny(req.bytes, { filename: req.filename, format: req.format, now: req.now === undefined ? undefined : new Date(req.now) });
  if (decoded.seed.files.length > req.maxFiles) {
    throw new SeedFormatError('files', `the seed lists ${decoded.seed.files.length} files, more than this server accepts (seed_max_files = ${req.maxFiles})`);
  }
  return analyzeDecoded(decoded);
}
