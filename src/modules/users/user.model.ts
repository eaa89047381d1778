/** Users, roles and permission bits (contract §5). */
export const Role = { GENERAL: 0, GUEST: 1, ADMIN: 2 } as const;

/** Permission bit numbers: bit n set ⇔ `(permission >> n) & 1`. */
export const Perm = {
  SEE_HIDDEN: 0,
  ACCESS_WITHOUT_PASSWORD: 1,
  OFFLINE_DOWNLOAD: 2,
  WRITE: 3,
  RENAME: 4,
  MOVE: 5,
  COPY: 6,
  REMOVE: 7,
  WEBDAV_READ: 8,
  WEBDAV_MANAGE: 9,
  SFTP_READ: 10,
  SFTP_WRITE: 11,
  READ_ARCHIVES: 12,
  DECOMPRESS: 13,
  SHARE: 14,
  CUSTOM_SHARE_ID: 15,
} as const;

export const ALL_PERMISSIONS = 0xffff;

export interface User {
  id: number;
  username: string;
  pwdHash: string;
  salt: string;
  /** Time of the last password change, Unix ms; tokens carry it and die when it changes. */
  pwdTs: number;
  basePath: string;
  role: number;
  disabled: boolean;
  permission: number;
  otpSecret: string;
  ssoId: string;
}

export const isAdmin = (u: User) => u.role === Role.ADMIN;
export const isGuest = (u: User) => u.role === Role.GUEST;

/** The admin role bypasses permission bits. */
export function can(u: User, bit: number): boolean {
  return isAdmin(u) || ((u.permission >> bit) & 1) === 1;
}

/** The public shape of a user (GET /api/me): exactly these 9 fields. */
