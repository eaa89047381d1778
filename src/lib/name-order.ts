/**
 * The order of a folder listing: folders first, then names by the default locale-aware collation (what `localeCompare` does), ties (names the collation deems equal, e.g. NFC and NFD spellings) broken by code units, so the
 * order is total and stable across requests: what paging needs.
 */
const collator = new Intl.Collator();

export function compareNames(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Folders before files, then `compareNames`. */
export function compareListed(a: { name: string; isDir: boolean }, b: { name: string; isDir: boolean }): number {
  return a.isDir === b.isDir ? compareNames(a.name, b.name) : a.isDir ? -1 : 1;
}
