/**
 * The route table. To add a page: write it under pages/, then add one entry here.
 * `path` is a React Router pattern (`/*` passes the rest of the URL as a virtual path, see
 * `useSplatPath`); `nav` puts a link in the top bar; `admin` hides the link and guards the page
 * for non-admins. Share pages (`/s/:id/*`) are public and live outside the signed-in shell (App.tsx).
 */
import { lazy, Suspense, type ReactNode } from 'react';
import { FilesPage } from './pages/files/FilesPage.js';
import { PreviewPage } from './pages/PreviewPage.js';
import { AccountPage } from './pages/account/AccountPage.js';
import { UsersPage } from './pages/admin/UsersPage.js';
import { StoragesPage } from './pages/admin/StoragesPage.js';
import { SettingsPage } from './pages/admin/SettingsPage.js';
import { MetasPage } from './pages/admin/MetasPage.js';
import { SeedWizardPage } from './pages/seeds/SeedWizardPage.js';
import { TasksPage } from './pages/tasks/TasksPage.js';
import { href, pathHref, useSearchParams, useSplatPath } from './router.js';

/** The viewers (highlight.js, marked, DOMPurify) load when a file is first opened. */
const ViewerPage = lazy(() => import('./pages/view/ViewerPage.js'));

export interface RouteDef {
  path: string;
  title: string;
  element: ReactNode;
  nav?: string;
  admin?: boolean;
}

function FilesRoute() {
  return <FilesPage path={useSplatPath(1)} />;
}

function ViewRoute() {
  const path = useSplatPath(1);
  return (
    <Suspense fallback={null}>
      <ViewerPage key={path} path={path} />
    </Suspense>
  );
}

function PreviewRoute() {
  const [q] = useSearchParams();
  return <PreviewPage path={q.get('path') ?? ''} />;
}

function SeedWizardRoute() {
  const [q] = useSearchParams();
  return <SeedWizardPage paths={q.getAll('path')} />;
}

function TasksRoute() {
  const [q] = useSearchParams();
  return <TasksPage type={q.get('type') ?? ''} />;
}

export const routes: RouteDef[] = [
  { path: '/files/*', title: 'Files', nav: 'Files', element: <FilesRoute /> },
  { path: '/view/*', title: 'View', element: <ViewRoute /> },
  { path: '/preview', title: 'Seed preview', element: <PreviewRoute /> },
  { path: '/seeds/new', title: 'Make a seed', element: <SeedWizardRoute /> },
  { path: '/tasks', title: 'Tasks', nav: 'Tasks', element: <TasksRoute /> },
  { path: '/account', title: 'Account', element: <AccountPage /> },
  { path: '/admin/users', title: 'Users', nav: 'Users', admin: true, element: <UsersPage /> },
  { path: '/admin/storages', title: 'Storages', nav: 'Storages', admin: true, element: <StoragesPage /> },
  { path: '/admin/metas', title: 'Metas', nav: 'Metas', admin: true, element: <MetasPage /> },
  { path: '/admin/settings', title: 'Settings', nav: 'Settings', admin: true, element: <SettingsPage /> },
];

/** Where `/` (and a fresh login) lands. */
export const HOME = '/files/';

/** The link to a folder of the file browser. */
export function filesHref(path: string): string {
  return pathHref('/files', path);
}

/** The viewer of a file (`/view/<path>`), one URL per file. */
export function viewHref(path: string): string {
  return pathHref('/view', path);
}

/** A share's page (`/s/<id>/<path>`): a folder listing, or the viewer of a file with `?view=1`. */
export function shareHref(id: string, path: string, query: Record<string, string | undefined> = {}): string {
  return href(pathHref(`/s/${encodeURIComponent(id)}`, path), query);
}
