/** Shapes of the server's JSON payloads (contract §2–§9), as the UI uses them. */

export interface Page<T> {
  content: T[];
  total: number;
}

export interface User {
  id: number;
  username: string;
  password: string;
  base_path: string;
  role: number;
  disabled: boolean;
  permission: number;
  sso_id: string;
  otp: boolean;
}

export type HashName = 'md5' | 'sha1' | 'sha256';

export interface Obj {
  name: string;
  size: number;
  is_dir: boolean;
  modified: string;
  created: string;
  sign: string;
  thumb: string;
  type: number;
  hash_info: Partial<Record<HashName, string>> | null;
}

export interface FsList {
  content: Obj[] | null;
  total: number;
  write: boolean;
  provider: string;
}

export interface Share {
  id: string;
  files: string[];
  expires: string | null;
  pwd: string;
  accessed: number;
  max_accessed: number;
  disabled: boolean;
  remark: string;
  creator: string;
  url: string;
}

export interface SshKey {
  id: number;
  title: string;
  fingerprint: string;
  added_time: string;
  last_used_time: string;
}

export interface Setting {
  key: string;
  value: string;
  type: 'string' | 'text' | 'bool' | 'number' | 'json' | 'select' | string;
  group: string;
  public: boolean;
  options: string[];
  help: string;
}

export interface Storage {
  id: number;
  mount_path: string;
  driver: string;
  order: number;
  remark: string;
  disabled: boolean;
  seed_policy: 'inherit' | 'on' | 'off';
  proxy: boolean;
  addition: string;
  status: string;
  modified: string;
}

export interface DriverOption {
  name: string;
  type: 'string' | 'number' | 'bool' | 'select' | string;
  default: string;
  options: string;
  required: boolean;
  help: string;
}

export interface DriverInfo {
  config: { name: string; display_name: string; only_proxy: boolean; default_proxy: boolean };
  additional: DriverOption[];
}

export interface TaskInfo {
  id: string;
  name: string;
  creator: string;
  state: number;
  status: string;
  progress: number;
  start_time: string | null;
  end_time: string | null;
  total_bytes: number;
  error: string;
}

/** `{"md5":{"whole":bool,"pieces":bool},…}` (contract §10.1). */
export type HashMatrix = Record<HashName, { whole: boolean; pieces: boolean }>;
export type SeedFormat = 'oss' | 'torrent' | 'cas';
