/** The per-file choices of a generate request (comments, share and direct links) matched to its files. */
import { badRequest } from '../../../lib/errors.js';
import { isWithin } from '../../../lib/paths.js';
import { userPath } from '../../fs/access.js';
import type { User } from '../../users/user.model.js';
import type { SourceFile } from '../common/source-files.js';
import type { GenerateOptions } from './request.js';

/** Files a request path string stands for: the file itself, everything below a folder, or a seed path. `*` = all. */
function matching(user: User, files: SourceFile[], key: string): SourceFile[] {
  if (key === '*') return files;
  const bySeed = files.filter((f) => f.seedPath === key);
  if (bySeed.length > 0) return bySeed;
  let full: string;
  try {
    full = userPath(user, key);
  } catch {
    return [];
  }
  return files.filter((f) => f.full === full || isWithin(full, f.full));
}

/** Applies `file_comments`, `share_files` and `direct_files`; an entry matching no file is a 400 naming it. */
export function annotateFiles(user: User, files: SourceFile[], opts: GenerateOptions): void {
  const each = (field: string, keys: string[], apply: (f: SourceFile, key: string) => void) => {
    for (const [i, key] of keys.entries()) {
      const hit = matching(user, files, key);
      if (hit.length === 0) throw badRequest(`${field}[${i}]: ${JSON.stringify(key)} is not a file of this seed`, { field: `${field}[${i}]` });
      for (const f of hit) apply(f, key);
    }
  };
  for (const [key, text] of Object.entries(opts.fileComments)) {
    const hit = matching(user, files, key);
    if (hit.length === 0) throw badRequest(`file_comments[${JSON.stringify(key)}]: not a file of this seed`, { field: 'file_comments' });
    for (const f of hit) f.comment = text.trim();
  }
  each('share_files', opts.shareFiles, (f) => (f.share = true));
  each('direct_files', opts.directFiles, (f) => (f.direct = true));
}

