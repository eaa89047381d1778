/** Roles and permission bits (contract §5), with the names the admin pages show. */
export const ROLE_NAMES: Record<number, string> = { 0: 'General', 1: 'Guest', 2: 'Admin' };

export const PERMISSIONS: readonly { bit: number; name: string }[] = [
  { bit: 0, name: 'See hidden files' },
  { bit: 1, name: 'Access without password' },
  { bit: 2, name: 'Offline download' },
  { bit: 3, name: 'Write (create folders, upload)' },
  { bit: 4, name: 'Rename' },
  { bit: 5, name: 'Move' },
  { bit: 6, name: 'Copy' },
  { bit: 7, name: 'Remove' },
  { bit: 8, name: 'WebDAV read' },
  { bit: 9, name: 'WebDAV manage' },
  { bit: 10, name: 'SFTP login and read (OpenList UI: “FTP read”)' },
  { bit: 11, name: 'SFTP write (OpenList UI: “FTP manage”)' },
  { bit: 12, name: 'Read archives' },
  { bit: 13, name: 'Decompress' },
  { bit: 14, name: 'Share' },
  { bit: 15, name: 'Custom share id' },
];

export const Perm = { OFFLINE_DOWNLOAD: 2, WRITE: 3, RENAME: 4, MOVE: 5, COPY: 6, REMOVE: 7, SHARE: 14 } as const;

export function hasBit(permission: number, bit: number): boolean {
  return ((permission >> bit) & 1) === 1;
}

/** What the user may do: the admin role bypasses the bits. */
export function can(user: { role: number; permission: number } | null, bit: number): boolean {
  if (!user) return false;
  return user.role === 2 || hasBit(user.permission, bit);
}
