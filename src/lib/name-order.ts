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
  return listedOrder(a.isDir, a.name, b.isDir, b.name);
}

/** `compareListed` of two entries given by their fields (listings kept as columns). */
export function listedOrder(aDir: boolean, aName: string, bDir: boolean, bName: string): number {
  return aDir === bDir ? compareNames(aName, bName) : aDir ? -1 : 1;
}
