/** The shell: providers, top bar with navigation, and the page for the current URL. */
import { useEffect, useState } from 'react';
import { DialogProvider } from './components/Dialogs.js';
import { ToastProvider } from './components/Toast.js';
import { EmptyState, Spinner } from './components/ui.js';
import { LoginPage } from './pages/LoginPage.js';
import { Link, navigate, useLocation } from './router.js';
import { HOME, matchRoute, routes } from './routes.js';
import { SessionProvider, useSession } from './session.js';

export function App() {
  return (
    <ToastProvider>
      <DialogProvider>
        <SessionProvider>
          <Shell />
        </SessionProvider>
      </DialogProvider>
    </ToastProvider>
  );
}

function Shell() {
  const session = useSession();
  const loc = useLocation();

  useEffect(() => {
    if (session.status === 'ready' && (loc.pathname === '/' || loc.pathname === '/login')) navigate(HOME, { replace: true });
  }, [session.status, loc.pathname]);

  if (session.status === 'loading') return <Spinner />;
  if (session.status === 'anonymous') return <LoginPage />;

  const found = matchRoute(loc.pathname, loc.query);
  let page;
  if (!found) page = <EmptyState title="Page not found">Nothing lives at {loc.pathname}. <Link to={HOME}>Go to your files</Link>.</EmptyState>;
  else if (found.route.admin && !session.isAdmin) page = <EmptyState title="Admins only">This page is for administrators.</EmptyState>;
  else page = found.route.render(found.match);

  return (
    <div className="app">
      <TopBar current={found?.route.path ?? ''} />
      <main className="main" id="main">
        {page}
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
