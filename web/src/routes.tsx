/**
 * The route table. To add a page: write it under pages/, then add one entry here.
 * `path` is exact, or a prefix ending in `/*` whose remainder is passed as `rest`.
 * `nav` puts a link in the top bar; `admin` hides the link and guards the page for non-admins.
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

/** The viewers (highlight.js, marked, DOMPurify) load when a file is first opened. */
const ViewerPage = lazy(() => import('./pages/view/ViewerPage.js'));

export interface RouteMatch {
  /** What followed the prefix of a `/*` route, decoded (e.g. the folder of /files/a/b → `/a/b`). */
  rest: string;
  query: URLSearchParams;
}

export interface RouteDef {
  path: string;
  title: string;
  render: (m: RouteMatch) => ReactNode;
  nav?: string;
  admin?: boolean;
}

export const routes: RouteDef[] = [
  { path: '/files/*', title: 'Files', nav: 'Files', render: (m) => <FilesPage path={m.rest} /> },
  { path: '/view/*', title: 'View', render: (m) => <Suspense fallback={null}><ViewerPage key={m.rest} path={m.rest} /></Suspense> },
  { path: '/preview', title: 'Seed preview', render: (m) => <PreviewPage path={m.query.get('path') ?? ''} /> },
  { path: '/seeds/new', title: 'Make a seed', render: (m) => <SeedWizardPage paths={m.query.getAll('path')} /> },
  { path: '/tasks', title: 'Tasks', nav: 'Tasks', render: (m) => <TasksPage type={m.query.get('type') ?? ''} /> },
  { path: '/account', title: 'Account', render: () => <AccountPage /> },
  { path: '/admin/users', title: 'Users', nav: 'Users', admin: true, render: () => <UsersPage /> },
  { path: '/admin/storages', title: 'Storages', nav: 'Storages', admin: true, render: () => <StoragesPage /> },
  { path: '/admin/metas', title: 'Metas', nav: 'Metas', admin: true, render: () => <MetasPage /> },
  { path: '/admin/settings', title: 'Settings', nav: 'Settings', admin: true, render: () => <SettingsPage /> },
];

/** Where `/` (and a fresh login) lands. */
export const HOME = '/files/';

function decodeRest(rest: string): string {
  try {
    return '/' + rest.split('/').filter(Boolean).map(decodeURIComponent).join('/');
  } catch {
    return '/';
  }
}

export function matchRoute(pathname: string, query: URLSearchParams): { route: RouteDef; match: RouteMatch } | null {
  for (const route of routes) {
    if (route.path.endsWith('/*')) {
      const prefix = route.path.slice(0, -2);
      if (pathname === prefix || pathname.startsWith(prefix + '/')) {
        return { route, match: { rest: decodeRest(pathname.slice(prefix.length)), query } };
      }
    } else if (pathname === route.path || pathname === route.path + '/') {
      return { route, match: { rest: '', query } };
    }
  }
  return null;
}

/** The link to a folder of the file browser. */
export function filesHref(path: string): string {
  const segs = path.split('/').filter(Boolean).map(encodeURIComponent);
  return '/files/' + segs.join('/');
}

/** The viewer of a file (`/view/<path>`), one URL per file. */
export function viewHref(path: string): string {
  return '/view/' + path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
}
