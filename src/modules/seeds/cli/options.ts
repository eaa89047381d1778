// Parsing of the seed commands' option values.
import { readFileSync } from 'node:fs';
import { SeedFormatError, parseSeedFormat } from '../formats/index.js';
import type { SeedFormat } from '../formats/index.js';

/** `oss,torrent` → ['oss', 'torrent']: `bt` = torrent, a leading dot and any case accepted, duplicates dropped, at most 3 entries. */
export function parseFormats(value: string): SeedFormat[] {
  const raw = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (raw.length === 0) throw new SeedFormatError('--format', 'no format given (expected oss, torrent and/or cas)');
  if (raw.length > 3) throw new SeedFormatError('--format', `at most 3 formats, got ${raw.length}`);
  const out: SeedFormat[] = [];
  for (const r of raw) {
    const f = parseSeedFormat(r.toLowerCase().replace(/^\./, '') === 'bt' ? 'torrent' : r, '--format');
    if (!out.includes(f)) out.push(f);
  }
  return out;
}

/** Byte counts: `262144`, `256K`/`256KiB`, `10M`/`10MiB`, `2^18`. */
export function parseByteSize(value: string, what = '--piece-size'): number {
  const s = value.trim();
  const pow = /^2\s*\^\s*(\d{1,2})$/.exec(s);
  if (pow) return 2 ** Number(pow[1]);
  const m = /^(\d+)\s*(?:([kmg])(?:i?b)?)?$/i.exec(s);
  if (!m) throw new SeedFormatError(what, `not a byte size: ${JSON.stringify(value)} (e.g. 262144, 256KiB, 2^18)`);
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase() as '' | 'k' | 'm' | 'g'];
  const n = Number(m[1]) * mult;
  if (!Number.isSafeInteger(n)) throw new SeedFormatError(what, `too large: ${value}`);
  return n;
}

/** Commander collector for repeatable options. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

let version: string | undefined;

/** Ferry's version, from the package.json above this module (source tree or dist/). */
export function ferryVersion(): string {
  if (version) return version;
  for (let up = 1; up <= 6; up++) {
    try {
      const url = new URL(`${'../'.repeat(up)}package.json`, import.meta.url);
      const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'ferry' && pkg.version) return (version = pkg.version);
    } catch {
      // keep looking upwards
    }
  }
  return (version = '0.0.0');
}
