/**
 * Transfer-seed formats: one model (`Seed`), three containers (`.oss`, `.torrent`, `.cas`).
 * Pure functions on bytes and plain objects — no I/O, no hashing of file content.
 *
 * - Model: `Seed`/`SeedFile`/`SeedHashes` (wire names of `.oss`), `validateSeed`, `createSeed`,
 *   `canonicalizeSeed` (lowercase hashes, empty optionals removed), limits and path/name rules.
 *   Every rejection is a `SeedFormatError` (`field`, optional `file`, `status` 400).
 * - Hash matrix: `parseHashMatrix` (untrusted JSON), `planSeedHashes` / `normalizeHashMatrix` /
 *   `resolvePieceSize` (what the hashing engine must compute for the target formats), `applyHashMatrix`.
 * - Containers: `encodeOss`/`decodeOss`, `encodeTorrent`/`decodeTorrent`, `encodeCas`/`decodeCas`.
 *   Decoders return canonical validated seeds; encoders validate and never mutate their input.
 *   `encodeTorrent` needs the v1 SHA-1 piece stream (`TorrentPieceStream`, over all files concatenated
 *   in `torrentFileOrder`) unless the seed's per-file SHA-1 pieces are piece-aligned.
 * - Any container: `detectFormat`, `decodeAny` (→ `DecodedSeed` with `info_hash` for torrents),
 *   `conversionFeasibility`/`allConversions` (what is missing per file), `convertSeed`, `encodeSeed`,
 *   `diagnose` (what each container loses or lacks).
 * - Low level: `decodeBencode` (hardened, reports root value byte ranges) and `encodeBencode`.
 */
export * from './model.js';
export * from './hash-matrix.js';
export { decodeBencode, encodeBencode, isBencodeBytes, isBencodeDict, isBencodeInt, isBencodeList } from './bencode.js';
export type { BencodeDecodeOptions, BencodeDecodeResult, BencodeDict, BencodeInput, BencodeValue, ByteRange } from './bencode.js';
export { decodeOss, encodeOss, seedFromJson, seedToJson } from './oss.js';
export type { EncodeOptions } from './oss.js';
export { CAS_CREATED_BY, buildCasPayload, casSliceMd5, decodeCas, encodeCas, fileCasSliceMd5 } from './cas.js';
export type { CasEntry, CasPayload, DecodeCasOptions, EncodeCasOptions } from './cas.js';
export {
  TORRENT_DEFAULT_CREATED_BY,
  TORRENT_EXT_CAS,
  TORRENT_EXT_OPENLIST,
  decodeTorrent,
  encodeTorrent,
  isPieceAligned,
  isSingleFileTorrent,
  torrentFileOrder,
  torrentPiecesFromSeed,
} from './torrent.js';
export type { DecodeTorrentOptions, DecodedTorrent, EncodeTorrentOptions, TorrentPieceStream } from './torrent.js';
export {
  allConversions,
  conversionFeasibility,
  convertSeed,
  decodeAny,
  detectFormat,
  diagnose,
  encodeSeed,
  seedFileName,
} from './convert.js';
export type {
  ConversionFeasibility,
  ConvertResult,
  DecodeAnyOptions,
  DecodedSeed,
  DiagnoseOptions,
  EncodeSeedOptions,
  FeasibilityOptions,
  MissingData,
  MissingHash,
  SeedDiagnostic,
} from './convert.js';
