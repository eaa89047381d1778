/** What the SFTP server uses of the rest of Ferry. */
import type { Logger } from 'pino';
import type { AppPasswordsService } from '../app-passwords/app-passwords.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { FolderAccess } from '../fs/access.js';
import type { FsService } from '../fs/fs.service.js';
import type { UploadService } from '../fs/upload.service.js';
import type { SettingsReader } from '../settings/settings.service.js';
import type { SshKeysRepo } from '../ssh-keys/ssh-keys.repo.js';
import type { UsersRepo } from '../users/users.repo.js';

export interface SftpDeps {
  /** The virtual tree every session works on. */
  fs: Pick<FsService, 'stat' | 'list' | 'locate' | 'mkdir' | 'remove' | 'rename' | 'transfer' | 'sidecarsReplaced' | 'changeSet'>;
  /**
   * Folder rules (metas): names hidden from users without bit 0 are left out of listings and can be neither opened
   * nor changed; a meta's write grant lets users without bit 11 create folders and upload there (as over HTTP).
   */
  folderAccess?: Pick<FolderAccess, 'visibleIn' | 'isVisible' | 'requireChange' | 'metaGrantsWrite'>;
  /** Uploads go through the same pipeline as HTTP ones (companions, all or nothing). */
  uploads: Pick<UploadService, 'store'>;
  /** Password logins: the shared checks and lockout. */
  auth: Pick<AuthService, 'checkCredentials'>;
  /** App passwords work for password logins too (2FA users cannot send a code over SFTP). */
  appPasswords?: Pick<AppPasswordsService, 'verify'>;
  /** Key logins: the user's registered keys. */
  keys: Pick<SshKeysRepo, 'listByUser' | 'touch'>;
  /** Logins look users up by name; open sessions re-check theirs by id (sftp.guard.ts). */
  users: Pick<UsersRepo, 'byUsername' | 'withKey'>;
  settings: SettingsReader;
  logger: Logger;
  version: string;
  /** `<data dir>/ssh`: host keys. */
  hostKeyDir: string;
}
