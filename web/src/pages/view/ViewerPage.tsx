/** `/view/<path>`: a signed-in user's file in the viewer (FileViewer), its folder listed through TanStack Query. */
import { useCallback } from 'react';
import { errorMessage } from '../../api.js';
import { useFileInfo, useFolder } from '../../lib/queries.js';
import { baseName, downloadHref, joinPath, parentPath } from '../../lib/format.js';
import { viewKind } from '../../lib/fileKinds.js';
import { can, Perm } from '../../lib/permissions.js';
import { href, Navigate } from '../../router.js';
import { filesHref, viewHref } from '../../routes.js';
import { useSession } from '../../session.js';
import type { Obj } from '../../types.js';
import { FileViewer } from './FileViewer.js';

export default function ViewerPage({ path }: { path: string }) {
  const me = useSession().me!;
  const dir = parentPath(path);
  const name = baseName(path);
  const folder = useFolder(dir);
  const info = useFileInfo(path);
  const urlOf = useCallback((o: Obj) => downloadHref(me.base_path, dir, o), [me.base_path, dir]);
  const viewHrefOf = useCallback((n: string) => viewHref(joinPath(dir, n)), [dir]);

  if (viewKind(name) === 'seed') return <Navigate to={href('/preview', { path })} replace />;
  const mayWrite = folder.data?.write ?? can(me, Perm.WRITE);
  return (
    <FileViewer
      name={name}
      items={info.isPending ? undefined : folder.data?.content}
      error={folder.error ? errorMessage(folder.error) : null}
      urlOf={urlOf}
      viewHrefOf={viewHrefOf}
      back={{ href: filesHref(dir), label: dir === '/' ? 'the root folder' : baseName(dir) }}
      editPath={mayWrite ? path : undefined}
      contentType={info.data?.content_type}
    />
  );
}
