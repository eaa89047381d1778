/** What the WebDAV server uses of the rest of Ferry (the same services as the HTTP API and SFTP). */
import type { FastifyRequest } from 'fastify';
import type { AuthService } from '../auth/auth.service.js';
import type { FolderAccess } from '../fs/access.js';
import type { FsService } from '../fs/fs.service.js';
import type { UploadService } from '../fs/upload.service.js';
import type { UsersRepo } from '../users/users.repo.js';
import type { User } from '../users/user.model.js';
import type { DavStore } from './webdav.store.js';

/** App passwords: the user when `password` is one of `username`'s app passwords (null: not app-password shaped). */
export interface AppPasswordCheck {
  verify(username: string, password: string, ip: string): Promise<{ user: User; id: number } | null>;
  exists(id: number): Promise<boolean>;
}

export interface WebdavDeps {
  /** The virtual tree. */
  fs: Pick<FsService, 'stat' | 'list' | 'listed' | 'locate' | 'mkdir' | 'remove' | 'rename' | 'transfer' | 'sidecarsReplaced' | 'changeSet'>;
  /** Uploads go through the same pipeline as HTTP and SFTP ones (companions, all or nothing). */
  uploads: Pick<UploadService, 'store'>;
  /** Basic logins: the shared checks and lockout; Bearer: the API's tokens. */
  auth: Pick<AuthService, 'checkCredentials' | 'authenticate'>;
  /** Remembered Basic logins re-read their user by name. */
  users: Pick<UsersRepo, 'byUsername'>;
  appPasswords: AppPasswordCheck;
  /** Folder rules (metas): hidden names and folder passwords, as for every protocol. */
  folderAccess: Pick<FolderAccess, 'visibleIn' | 'requireAccess'>;
  /** Dead properties and locks (database). */
  store: DavStore;
  /** Host paths the request's user must not see in an error message. */
  hiddenPathsOf: (req: FastifyRequest) => readonly string[];
}
