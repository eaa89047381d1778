// `seed inspect FILE`: a readable preview of any container (or the same facts as JSON).
import { allConversions, diagnose, seedTotalSize } from '../formats/index.js';
import type { DecodedSeed, MissingData, SeedFormat } from '../formats/index.js';
import { formatBytes } from './progress.js';

export interface InspectOptions {
  json?: boolean;
  /** List every piece hash instead of a count. */
  pieces?: boolean;
}

/** The JSON shape of `seed inspect --json` (close to the API's parse response). */
export function inspectJson(d: DecodedSeed) {
  const conversions = allConversions(d.seed, { torrentPieces: d.torrent_pieces });
  return {
    format: d.format,
    ...(d.info_hash ? { info_hash: d.info_hash } : {}),
    seed: d.seed,
    total_size: seedTotalSize(d.seed),
    conversions,
    diagnostics: diagnose(d),
  };
}

const missingText = (m: MissingData[]): string => m.map((x) => `${x.file}: ${x.reason}`).join('; ');

/** Human-readable preview. */
export function inspectText(d: DecodedSeed, opts: InspectOptions = {}): string {
  const s = d.seed;
  const lines: string[] = [];
  const kv = (k: string, v: string) => lines.push(`${`${k}:`.padEnd(13)}${v}`);
  kv('Seed', s.name);
  kv('Container', d.format + (d.info_hash ? ` (info hash ${d.info_hash})` : ''));
  kv('Created', `${s.created_at} by ${s.created_by}`);
  kv('Piece size', `${formatBytes(s.piece_size)} (${s.piece_size} bytes)`);
  kv('Total', `${formatBytes(seedTotalSize(s))} in ${s.files.length} file${s.files.length === 1 ? '' : 's'}`);
  if (s.comment) {
    const [first, ...rest] = s.comment.split('\n');
    kv('Comment', first ?? '');
    for (const r of rest) lines.push(`${' '.repeat(13)}${r}`);
  }
  for (const t of s.trackers ?? []) kv('Tracker', t);
  for (const c of s.channels ?? []) kv('Channel', c.driver + (c.mount_path ? ` at ${c.mount_path}` : ''));
  lines.push('', 'Files:');
  for (const f of s.files) {
    lines.push(`  ${f.path}  ${formatBytes(f.size)}${f.size >= 1024 ? ` (${f.size} bytes)` : ''}${f.modified ? `  modified ${f.modified}` : ''}`);
    if (f.comment) lines.push(`    comment: ${f.comment.replace(/\n/g, '\n             ')}`);
    for (const alg of ['md5', 'sha1', 'sha256', 'gcid'] as const) if (f.hashes[alg]) lines.push(`    ${alg.padEnd(7)}${f.hashes[alg]}`);
    const p = f.hashes.pieces;
    for (const alg of ['md5', 'sha1', 'sha256'] as const) {
      const list = p?.[alg];
      if (!list || list.length === 0) continue;
      if (opts.pieces) list.forEach((h, i) => lines.push(`    ${alg} piece ${i}: ${h}`));
      else lines.push(`    ${alg} pieces: ${list.length}${list.length <= 2 ? ` (${list.join(', ')})` : ''}`);
    }
    if (f.cas_slice_md5) lines.push(`    cas sliceMd5: ${f.cas_slice_md5}${f.cas_cloud ? ` (cloud ${f.cas_cloud})` : ''}`);
    for (const src of f.sources ?? []) lines.push(`    source: ${src.type} ${src.url}${src.expires_at ? ` (expires ${src.expires_at})` : ''}`);
    if (f.missing_channels?.length) lines.push(`    missing on: ${f.missing_channels.join(', ')}`);
  }
  if (d.torrent_pieces) lines.push('', `Torrent pieces: ${d.torrent_pieces.hashes.length / 20} × ${formatBytes(d.torrent_pieces.pieceSize)} over all files`);
  const conv = allConversions(s, { torrentPieces: d.torrent_pieces });
  lines.push('', 'Conversions:');
  for (const fmt of ['oss', 'torrent', 'cas'] as SeedFormat[]) {
    const c = conv[fmt];
    lines.push(`  ${fmt.padEnd(8)}${c.feasible ? 'yes' : `no: ${missingText(c.missing)}`}`);
  }
  const diags = diagnose(d).filter((x) => !(x.code.endsWith('missing_hashes')));
  if (diags.length > 0) {
    lines.push('', 'Notes:');
    for (const x of diags) lines.push(`  ${x.level}: ${x.format ? `[${x.format}] ` : ''}${x.file ? `${x.file}: ` : ''}${x.message}`);
  }
  return lines.join('\n') + '\n';
}
