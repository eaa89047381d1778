/** Mounts every module's routes on the HTTP kit's server: the only place that knows all of them. */
import { pingDatabase } from '../db/database.js';
import { createHttpServer } from '../http/server.js';
import { staticUiRoutes } from '../http/static-ui.js';
import type { HttpApp } from '../http/types.js';
import { authRoutes } from '../modules/auth/auth.routes.js';
import { authGuard } from '../modules/auth/principal.js';
import { downloadRoutes } from '../modules/fs/download.routes.js';
import { fsBatchRoutes } from '../modules/fs/fs-batch.routes.js';
import { fsRoutes } from '../modules/fs/fs.routes.js';
import { uploadRoutes } from '../modules/fs/upload.routes.js';
import { searchRoutes } from '../modules/search/search.routes.js';
import { thumbsRoutes } from '../modules/thumbs/thumbs.routes.js';
import { metasRoutes } from '../modules/metas/metas.routes.js';
import { openListRoutes } from '../modules/openlist/openlist.routes.js';
import { offlineRoutes } from '../modules/offline/offline.routes.js';
import { seedsRoutes } from '../modules/seeds/seeds.routes.js';
import { settingsRoutes } from '../modules/settings/settings.routes.js';
import { sharesRoutes } from '../modules/shares/shares.routes.js';
import { sshKeysRoutes } from '../modules/ssh-keys/ssh-keys.routes.js';
import { storagesRoutes } from '../modules/storages/storages.routes.js';
import { healthRoutes } from '../modules/system/health.routes.js';
import { tasksRoutes } from '../modules/tasks/tasks.routes.js';
import { twoFactorRoutes } from '../modules/two-factor/two-factor.routes.js';
import { usersRoutes } from '../modules/users/users.routes.js';
import { webdavRoutes } from '../modules/webdav/webdav.routes.js';
import { appPasswordsRoutes } from '../modules/app-passwords/app-passwords.routes.js';
import type { Services } from './services.js';
import { isAdmin } from '../modules/users/user.model.js';

/** The data dir and every local storage's root folder (as configured and as resolved). */
function hostPaths(s: Services): string[] {
  const out = [s.config.dataDir];
  for (const m of s.storages.list()) {
    const configured = m.record.addition.root_folder_path;
    if (typeof configured === 'string') out.push(configured);
    if (m.driver?.hostPath) out.push(m.driver.hostPath);
  }
  return out;
}

export async function buildHttpServer(s: Services): Promise<HttpApp> {
  const app = await createHttpServer({
    logger: s.logger,
    logLevel: s.config.logLevel,
    trustProxy: s.config.trustProxy,
    headersTimeoutMs: s.config.headersTimeoutMs,
    bodyIdleTimeoutMs: s.config.bodyIdleTimeoutMs,
    eventLoopStats: s.config.eventLoopStats,
    version: s.version,
    errorsAsHttp200: () => s.settings.getBool('api_errors_http_200'),
    guard: authGuard(s.auth),
    basePathOf: (req) => req.principal?.user.basePath,
    hiddenPathsOf: (req) => (req.principal && isAdmin(req.principal.user) ? [] : hostPaths(s)),
  });
  healthRoutes(app, { pingDatabase: () => pingDatabase(s.database), storages: s.storages });
  authRoutes(app, s);
  twoFactorRoutes(app, s);
  usersRoutes(app, s);
  sshKeysRoutes(app, s);
  appPasswordsRoutes(app, s);
  settingsRoutes(app, s);
  openListRoutes(app);
  metasRoutes(app, s);
  storagesRoutes(app, s);
  fsRoutes(app, s);
  fsBatchRoutes(app, s);
  uploadRoutes(app, s);
  downloadRoutes(app, s);
  thumbsRoutes(app, s);
  sharesRoutes(app, s);
  tasksRoutes(app, { tasks: s.tasks, users: s.usersRepo });
  seedsRoutes(app, s.seeds);
  webdavRoutes(app, {
    fs: s.fs,
    uploads: s.uploads,
    auth: s.auth,
    users: s.usersRepo,
    store: s.davStore,
    folderAccess: s.folderAccess,
    appPasswords: s.appPasswords,
    setModified: (full, mtime) => s.fs.setModified(full, mtime),
    hiddenPathsOf: (req) => (req.principal && isAdmin(req.principal.user) ? [] : hostPaths(s)),
  });
  searchRoutes(app, s);
  offlineRoutes(app, s.offline);
  await staticUiRoutes(app);
  return app;
}
