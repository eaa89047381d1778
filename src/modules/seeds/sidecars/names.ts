/** Sidecar naming: `<file name>.<format>` in the file's folder. */
import { SEED_FORMATS, type SeedFormat } from '../formats/index.js';

export const sidecarName = (fileName: string, format: SeedFormat): string => `${fileName}.${format}`;

/** The sidecar names a file may have, with their format. */
export function sidecarNamesOf(fileName: string): { format: SeedFormat; name: string }[] {
  return SEED_FORMATS.map((format) => ({ format, name: sidecarName(fileName, format) }));
}

/** The file `name` would be a sidecar of, or null when it does not end in a seed format. */
export function sidecarOwner(name: string): string | null {
  for (const f of SEED_FORMATS) {
    const suffix = `.${f}`;
    if (name.length > suffix.length && name.endsWith(suffix)) return name.slice(0, -suffix.length);
  }
  return null;
}
