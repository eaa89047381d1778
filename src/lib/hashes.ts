/** The whole-file hash kinds Ferry knows, in one place: drivers, the hash index, seeds and uploads use these. */

export const HASH_NAMES = ['md5', 'sha1', 'sha256'] as const;
export type HashName = (typeof HASH_NAMES)[number];
/** Lower-case hex digests. */
export type Hashes = Partial<Record<HashName, string>>;

/** Hex digits of each digest. */
export const HASH_HEX_LENGTH: Readonly<Record<HashName, number>> = { md5: 32, sha1: 40, sha256: 64 };

/** Keeps valid hex digests of known kinds, lower-cased. */
export function normalizeHashes(h: Hashes | undefined): Hashes {
  const out: Hashes = {};
  if (!h) return out;
  for (const n of HASH_NAMES) {
    const v = h[n];
    if (typeof v === 'string' && v.length === HASH_HEX_LENGTH[n] && /^[0-9a-fA-F]+$/.test(v)) out[n] = v.toLowerCase();
  }
  return out;
}

/** True when at least one digest is present. */
export function hasAny(h: Hashes | undefined): h is Hashes {
  return !!h && HASH_NAMES.some((n) => h[n]);
}
