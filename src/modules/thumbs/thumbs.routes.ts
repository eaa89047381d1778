/** `POST /api/fs/thumbnails`: queue a `thumbnails` task for a folder the user may open. */
import { Type } from 'typebox';
import { OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest } from '../../lib/errors.js';
import { currentUser } from '../auth/principal.js';
import { userPath, type FolderAccess } from '../fs/access.js';
import type { FsService } from '../fs/fs.service.js';
import { presentTask } from '../tasks/tasks.present.js';
import { TaskInfoSchema } from '../tasks/tasks.schemas.js';
import type { TaskQueue } from '../tasks/tasks.service.js';
import { THUMBNAILS_TASK } from './thumbs.task.js';

export const ThumbnailsBody = Type.Object({
  path: Type.String({ description: 'a folder' }),
  recursive: Type.Optional(Type.Boolean({ description: 'every folder below it too (default false)' })),
  password: Type.Optional(Type.String({ description: "the folder's password, when a meta sets one" })),
});

export interface ThumbsRouteDeps {
  fs: Pick<FsService, 'stat'>;
  tasks: TaskQueue;
  folderAccess: Pick<FolderAccess, 'requireAccess'>;
}

export function thumbsRoutes(app: HttpApp, { fs, tasks, folderAccess }: ThumbsRouteDeps): void {
  app.post('/api/fs/thumbnails', {
    config: { auth: 'user' as const },
    schema: {
      tags: ['fs'],
      summary: "Make the missing thumbnails of a folder's images and videos (recursive: and below it), as a task",
      body: ThumbnailsBody,
      response: { 200: OkOf(TaskInfoSchema) },
    },
  }, async (req) => {
    const user = currentUser(req);
    const full = userPath(user, req.body.path);
    const dir = await fs.stat(full);
    await folderAccess.requireAccess(user, full, true, req.body.password, req.ip, user.basePath);
    if (!dir.isDir) throw badRequest('not a folder');
    const recursive = req.body.recursive ?? false;
    const row = await tasks.create(THUMBNAILS_TASK, { name: `thumbnails of ${req.body.path}${recursive ? ' and below' : ''}`, creatorId: user.id, payload: { path: full, recursive } });
    return ok(presentTask(row, user.username, user.role));
  });
}
