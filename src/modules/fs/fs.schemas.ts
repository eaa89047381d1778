/** Wire shapes of the file API (contract §8, OpenList `ObjResp`): server types and OpenAPI come from these. */
import { Type, type Static } from 'typebox';
import { Nullable } from '../../http/envelope.js';
import { TaskInfoSchema } from '../tasks/tasks.schemas.js';

const HashInfo = Type.Object({ md5: Type.Optional(Type.String()), sha1: Type.Optional(Type.String()), sha256: Type.Optional(Type.String()) });

/** One entry of a listing (OpenList `ObjResp`). */
export const ObjSchema = Type.Object({
  name: Type.String(),
  size: Type.Number(),
  is_dir: Type.Boolean(),
  modified: Type.String(),
  created: Type.String(),
  /** `?sign=` of the file's download link while `sign_all` is on, else `''`. */
  sign: Type.String(),
  thumb: Type.String(),
  /** 0 unknown, 1 folder, 2 video, 3 audio, 4 text, 5 image. */
  type: Type.Integer(),
  /** `hash_info` as a JSON string (OpenList clients read this one). */
  hashinfo: Type.String(),
  hash_info: Nullable(HashInfo),
});
export type ObjView = Static<typeof ObjSchema>;

export const FsListSchema = Type.Object({
  content: Type.Array(ObjSchema),
  total: Type.Integer(),
  readme: Type.String(),
  header: Type.String(),
  write: Type.Boolean(),
  provider: Type.String(),
});

export const FsGetSchema = Type.Intersect([
  ObjSchema,
  Type.Object({
    raw_url: Type.String(),
    readme: Type.String(),
    header: Type.String(),
    provider: Type.String(),
    related: Type.Null(),
    content_type: Type.String({ description: "the MIME type the file's first bytes show (a folder: empty); `type` is judged by them too, the extension only where they leave it open" }),
  }),
]);

export const DirSchema = Type.Object({ name: Type.String(), modified: Type.String() });

export const PathBody = Type.Object({ path: Type.String(), password: Type.Optional(Type.String()) });

/** Paging numbers are 32-bit integers (OpenList's are Go ints); anything else is a 400. */
const INT32 = 2 ** 31 - 1;

export const ListBody = Type.Object({
  path: Type.String(),
  password: Type.Optional(Type.String()),
  /** From 1; below 1 is 1 (OpenList). */
  page: Type.Optional(Type.Integer({ minimum: -INT32, maximum: INT32 })),
  /** Below 1 (the web UI sends 0) = everything. */
  per_page: Type.Optional(Type.Integer({ minimum: -INT32, maximum: INT32 })),
  refresh: Type.Optional(Type.Boolean()),
});

const Names = Type.Array(Type.String(), { maxItems: 10000 });

export const TransferBody = Type.Object({
  src_dir: Type.String(),
  dst_dir: Type.String(),
  names: Names,
  overwrite: Type.Optional(Type.Boolean()),
  skip_existing: Type.Optional(Type.Boolean()),
});

/** Move/copy: done at once, or queued as tasks (large transfers across storages). */
export const TransferResultSchema = Type.Object({ message: Type.String(), tasks: Type.Optional(Type.Array(TaskInfoSchema)) });

export const RemoveBody = Type.Object({ dir: Type.String(), names: Names });
export const RenameBody = Type.Object({ path: Type.String({ minLength: 1 }), name: Type.String(), overwrite: Type.Optional(Type.Boolean()) });
export const MkdirBody = Type.Object({ path: Type.String({ minLength: 1 }) });
export const DirsBody = Type.Object({ path: Type.String(), password: Type.Optional(Type.String()), force_root: Type.Optional(Type.Boolean()) });

/** An upload's reply: null, or the queued task of an as-task upload. */
export const UploadResultSchema = Type.Union([Type.Null(), Type.Object({ task: TaskInfoSchema })]);
