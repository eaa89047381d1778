/**
 * Seed names (service interface, seed generation rules 5 and 6; contract §10.3):
 * derivation from the files when no name is given, and the safety check every name passes.
 */
import { badRequest } from '../../../lib/errors.js';
import { baseName } from '../../../lib/paths.js';
import { seedNameProblem } from '../formats/index.js';

export const INVALID_SEED_NAME = 'invalid seed name';

/** `a.tar.gz` → `a.tar`; a leading dot is not an extension (`.bashrc` stays). */
export function stripExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}


/**
 * The seed name for the files at `files` (as the user sees them), by priority:
 * (a) one file (requested by itself, not a folder holding one file): its name without the extension; (b) several files whose names are equal
 * without extensions: that name; (c) the name of their common folder `root` (the requested
 * folder, or the folder holding the requested files); (d) `fallback` (the `seed_fallback_name`
 * setting) when that folder is the root.
 */
export function deriveSeedName(files: readonly string[], root: string, fallback: string, opts: { folderRequested?: boolean } = {}): { name: string; rule: 'a' | 'b' | 'c' | 'd' } {
  // a folder asked for by itself is not "a single file", even when it holds only one
  if (files.length === 1 && !opts.folderRequested) return { name: stripExtension(baseName(files[0]!)), rule: 'a' };
  const stems = new Set(files.map((p) => stripExtension(baseName(p))));
  if (files.length > 1 && stems.size === 1) return { name: [...stems][0]!, rule: 'b' };
  if (root !== '/') return { name: baseName(root), rule: 'c' };
  return { name: fallback, rule: 'd' };
}

/** Rule 6: empty (after trimming), `.`, `..`, or any `/` or `\` → 400 `invalid seed name: …`. */
export function checkSeedName(name: string): string {
  const problem = seedNameProblem(name);
  if (problem) throw badRequest(`${INVALID_SEED_NAME}: ${problem}`, { field: 'name', name });
  return name.trim();
}
