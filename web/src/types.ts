/** The server's shapes the UI uses, named; all derived from the generated OpenAPI types (api-types.ts). */
import type { Body, Data } from './api-types.js';

/** A `{content, total}` list. */
export interface Page<T> {
  content: T[];
  total: number;
}

export type User = Data<'/api/me', 'get'>;
export type PublicSettings = Data<'/api/public/settings', 'get'>;
export type FsList = Data<'/api/fs/list', 'post'>;
export type Obj = FsList['content'][number];
export type FsGet = Data<'/api/fs/get', 'post'>;
export type Share = Data<'/api/share/create', 'post'>;
export type SshKey = Data<'/api/me/sshkey/list', 'get'>['content'][number];
export type AppPassword = Data<'/api/me/app_password/list', 'get'>['content'][number];
export type Setting = Data<'/api/admin/setting/list', 'get'>[number];
export type Storage = Data<'/api/admin/storage/get', 'get'>;
export type DriverInfo = Data<'/api/admin/driver/list', 'get'>[string];
export type DriverOption = DriverInfo['additional'][number];
export type TaskInfo = Data<'/api/task/{type}/info', 'get'>;
export type UserInput = Body<'/api/admin/user/create', 'post'>;

type CapabilitiesReply = Data<'/api/fs/seed/capabilities', 'post'>;
/** The wizard's preflight (`{paths}` mode of capabilities). */
export type Capabilities = Extract<CapabilitiesReply, { default_matrix: unknown }>;
/** `{"md5":{"whole":bool,"pieces":bool},…}` (contract §10.1). */
export type HashMatrix = Capabilities['default_matrix'];
export type HashName = keyof HashMatrix;
export type Preview = Data<'/api/fs/seed/parse', 'post'>;
export type SeedFormat = Preview['format'];
export type SearchResult = Data<'/api/fs/search', 'post'>;
export type SearchHit = SearchResult['content'][number];
export type IndexProgress = Data<'/api/admin/index/progress', 'get'>;
export type Meta = Data<'/api/admin/meta/get', 'get'>;
