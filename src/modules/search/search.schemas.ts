/** Wire shapes of search (OpenList `fs/search`, `admin/index/*`). */
import { Type } from 'typebox';

export const SearchBody = Type.Object({
  parent: Type.Optional(Type.String({ default: '/', description: 'folder to search below, relative to the base path' })),
  keywords: Type.String({ description: 'words, all required; each matches any part of a name, case-insensitively' }),
  scope: Type.Optional(Type.Integer({ minimum: 0, maximum: 2, description: '0 all, 1 folders, 2 files' })),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  password: Type.Optional(Type.String()),
});

export const SearchHitSchema = Type.Object({
  parent: Type.String({ description: 'the folder holding it, relative to the base path' }),
  name: Type.String(),
  is_dir: Type.Boolean(),
  size: Type.Number(),
  type: Type.Integer(),
});

export const SearchResultSchema = Type.Object({ content: Type.Array(SearchHitSchema), total: Type.Integer() });

export const IndexBody = Type.Object({
  paths: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100, description: 'virtual paths to walk (default ["/"])' })),
  max_depth: Type.Optional(Type.Integer({ description: 'folder levels below each path; below 1 = the max_index_depth setting' })),
});

export const IndexProgressSchema = Type.Object({
  obj_count: Type.Integer({ description: 'objects in the index' }),
  is_done: Type.Boolean({ description: 'no build or update is pending or running' }),
  last_done_time: Type.Union([Type.String(), Type.Null()], { description: 'when the last build or update ended' }),
  error: Type.String({ description: 'the last build or update error, or ""' }),
});

export const ScanBody = Type.Object({
  path: Type.Optional(Type.String({ description: 'the virtual path to scan (default "/")' })),
  limit: Type.Optional(Type.Number({ minimum: 0, maximum: 10000, description: 'folder listings a second at most; 0: no limit' })),
});

export const ScanProgressSchema = Type.Object({
  obj_count: Type.Integer({ description: 'objects the running scan (or the last one) has walked' }),
  is_done: Type.Boolean({ description: 'no scan is pending or running' }),
});
