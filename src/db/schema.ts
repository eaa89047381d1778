/**
 * Table types for Kysely. Conventions that hold on both SQLite and PostgreSQL:
 * booleans are INTEGER 0/1, times are BIGINT Unix milliseconds (pg returns them
 * as numbers thanks to the int8 type parser in database.ts), JSON is TEXT.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  pwd_hash: string;
  salt: string;
  pwd_ts: number;
  base_path: string;
  role: number;
  disabled: number;
  permission: number;
  otp_secret: string;
  sso_id: string;
  created_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface AuthFailuresTable {
  id: Generated<number>;
  key: string;
  at: number;
}

export interface AuthLocksTable {
  key: string;
  until: number;
}

export interface RevokedTokensTable {
  jti: string;
  expires_at: number;
}

export interface UsedOtpCodesTable {
  user_id: number;
  code: string;
  expires_at: number;
}

export interface SshKeysTable {
  id: Generated<number>;
  user_id: number;
  title: string;
  fingerprint: string;
  key_text: string;
  added_time: number;
  last_used_time: number;
}

export interface StoragesTable {
  id: Generated<number>;
  mount_path: string;
  driver: string;
  order: number;
  remark: string;
  disabled: number;
  seed_policy: string;
  proxy: number;
  addition: string;
  modified: number;
  /** 1: the search index leaves this storage out (migration 0005). */
  disable_index: Generated<number>;
}

/**
 * Digests Ferry knows for stored files, valid for the recorded size+mtime: the `local` driver's
 * index, plus objects of other storages recorded by seed operations. Indexed by (digest, size)
 * for content lookup (migration 0003).
 */
export interface HashIndexTable {
  storage_id: number;
  path: string;
  size: number;
  mtime: number;
  md5: string | null;
  sha1: string | null;
  sha256: string | null;
  /** A client-set modification time (ms) for exactly this size+mtime (storages that cannot set one). */
  client_mtime: number | null;
}

export interface SharesTable {
  id: string;
  creator_id: number;
  /** JSON array of full virtual paths. */
  files: string;
  password: string;
  expires_at: number | null;
  max_accessed: number;
  accessed: number;
  disabled: number;
  remark: string;
  created_at: number;
}

export interface TasksTable {
  id: string;
  type: string;
  name: string;
  creator_id: number;
  state: number;
  status: string;
  progress: number;
  total_bytes: number;
  done_bytes: number;
  error: string;
  payload: string;
  result: string;
  runner: string | null;
  heartbeat_at: number | null;
  attempts: number;
  created_at: number;
  start_time: number | null;
  end_time: number | null;
}

export interface MetasTable {
  id: Generated<number>;
  /** Full virtual path of the folder (cleaned, unique). */
  path: string;
  password: string;
  p_sub: number;
  write: number;
  w_sub: number;
  /** Hidden-name patterns (RE2), one per line. */
  hide: string;
  h_sub: number;
  readme: string;
  r_sub: number;
  header: string;
  header_sub: number;
  modified: number;
}

/** One indexed object (migration 0005): `path` and `parent` are inside the storage; `name_lc` is what queries match. */
export interface SearchNodesTable {
  id: Generated<number>;
  storage_id: number;
  path: string;
  parent: string;
  name: string;
  name_lc: string;
  is_dir: number;
  size: number;
  modified: number;
}

export interface DB {
  users: UsersTable;
  settings: SettingsTable;
  auth_failures: AuthFailuresTable;
  auth_locks: AuthLocksTable;
  revoked_tokens: RevokedTokensTable;
  used_otp_codes: UsedOtpCodesTable;
  ssh_keys: SshKeysTable;
  storages: StoragesTable;
  hash_index: HashIndexTable;
  shares: SharesTable;
  tasks: TasksTable;
  dav_props: DavPropsTable;
  dav_locks: DavLocksTable;
  app_passwords: AppPasswordsTable;
  search_nodes: SearchNodesTable;
  metas: MetasTable;
}

/** WebDAV dead properties: one row per (full virtual path, namespace, name); value is XML. */
export interface DavPropsTable {
  path: string;
  ns: string;
  name: string;
  value: string;
}

/** WebDAV write locks (RFC 4918 §6-7), shared by every instance. */
export interface DavLocksTable {
  token: string;
  path: string;
  /** 0 or 1 (infinity). */
  deep: number;
  /** 1 exclusive, 0 shared. */
  exclusive: number;
  owner: string;
  user_id: number;
  timeout_s: number;
  expires_at: number;
  created_at: number;
}

/** App passwords (WebDAV and SFTP password logins, never the web login). */
export interface AppPasswordsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  pwd_hash: string;
  salt: string;
  created_at: number;
  last_used_time: number;
}
