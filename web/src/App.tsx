/**
 * The shell: providers, the data router, the top bar with navigation, and the page for the URL.
 * Server state lives in TanStack Query (`queryClient`); pages read it with `useQuery` and mutations
 * invalidate what they change. Share pages (`/s/…`) are public: no session, no top bar.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { createBrowserRouter, Outlet, RouterProvider, useMatches, type RouteObject } from 'react-router';
import { ApiError } from './api.js';
import { DialogProvider } from './components/Dialogs.js';
import { ToastProvider } from './components/Toast.js';
import { EmptyState, Spinner } from './components/ui.js';
import { LoginPage } from './pages/LoginPage.js';
import { Link, Navigate, useLocation } from './router.js';
import { HOME, routes, type RouteDef } from './routes.js';
import { SessionProvider, useSession } from './session.js';

const SharePage = lazy(() => import('./pages/share/SharePage.js'));

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx is an answer (not found, forbidden): asking again changes nothing.
      retry: (n, e) => !(e instanceof ApiError && e.code >= 400 && e.code < 500) && n < 2,
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

/** Toasts and dialogs sit inside the router, so what they show may hold links. */
function Root() {
  return (
    <ToastProvider>
      <DialogProvider>
        <Outlet />
      </DialogProvider>
    </ToastProvider>
  );
}

const router = createBrowserRouter([
  {
    element: <Root />,
    children: [
      {
        path: '/s/:id/*',
        element: (
          <Suspense fallback={<Spinner />}>
            <SharePage />
          </Suspense>
        ),
      },
      {
        element: (
          <SessionProvider>
            <Shell />
          </SessionProvider>
        ),
        children: [
          { index: true, element: <Navigate to={HOME} replace /> },
          { path: '/login', element: <Navigate to={HOME} replace /> },
          ...routes.map((r): RouteObject => ({ path: r.path, element: r.admin ? <AdminOnly>{r.element}</AdminOnly> : r.element, handle: r })),
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
]);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}

function AdminOnly({ children }: { children: React.ReactNode }) {
  if (!useSession().isAdmin) return <EmptyState title="Admins only">This page is for administrators.</EmptyState>;
  return <>{children}</>;
}

function NotFound() {
  return (
    <EmptyState title="Page not found">
      Nothing lives at {useLocation().pathname}. <Link to={HOME}>Go to your files</Link>.
    </EmptyState>
  );
}

function Shell() {
  const session = useSession();
  const matches = useMatches();
  const current = (matches[matches.length - 1]?.handle as RouteDef | undefined)?.path ?? '';

  useEffect(() => {
    // Who signs out or loses the session keeps nothing of the last user's server state.
    if (session.status === 'anonymous') queryClient.clear();
  }, [session.status]);

  if (session.status === 'loading') return <Spinner />;
  if (session.status === 'anonymous') return <LoginPage />;

  return (
    <div className="app">
      <TopBar current={current} />
      <main className="main" id="main">
        <Outlet />
      </main>
    </div>
  );
}

function TopBar({ current }: { current: string }) {
  const session = useSession();
  const [open, setOpen] = useState(false);
  const loc = useLocation();
  useEffect(() => setOpen(false), [loc.pathname]);
  const links = routes.filter((r) => r.nav && (!r.admin || session.isAdmin));
  const target = (path: string) => (path.endsWith('/*') ? path.slice(0, -1) : path);
  return (
    <header className="topbar">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Link to={HOME} className="brand">
        <span className="brand-mark" aria-hidden="true" />
        {session.settings.site_title || 'Ferry'}
      </Link>
      <button type="button" className="btn nav-toggle" aria-expanded={open} aria-controls="primary-nav" onClick={() => setOpen(!open)}>
        Menu
      </button>
      <nav id="primary-nav" className={open ? 'nav nav-open' : 'nav'} aria-label="Main">
        {links.map((r) => (
          <Link key={r.path} to={target(r.path)} className="nav-link" aria-current={r.path === current ? 'page' : undefined}>
            {r.nav}
          </Link>
        ))}
        <span className="nav-spacer" />
        <Link to="/account" className="nav-link" aria-current={current === '/account' ? 'page' : undefined}>
          {session.me?.username ?? 'Account'}
        </Link>
        <button type="button" className="btn btn-ghost" onClick={() => void session.signOut()}>
          Sign out
        </button>
      </nav>
    </header>
  );
}
