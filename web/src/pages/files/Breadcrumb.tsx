import { Link } from '../../router.js';
import { filesHref } from '../../routes.js';

/** Home / a / b — each part links to its folder; the last is the current page. */
export function Breadcrumb({ path, onNavigate }: { path: string; onNavigate?: (p: string) => void }) {
  const segs = path.split('/').filter(Boolean);
  const crumbs = [{ name: 'Home', path: '/' }, ...segs.map((s, i) => ({ name: s, path: '/' + segs.slice(0, i + 1).join('/') }))];
  return (
    <nav aria-label="Breadcrumb">
      <ol className="breadcrumb">
        {crumbs.map((c, i) =>
          i === crumbs.length - 1 ? (
            <li key={c.path}>
              <span aria-current="page">{c.name}</span>
            </li>
          ) : (
            <li key={c.path}>
              {onNavigate ? (
                <button type="button" className="link-btn" onClick={() => onNavigate(c.path)}>
                  {c.name}
                </button>
              ) : (
                <Link to={filesHref(c.path)}>{c.name}</Link>
              )}
            </li>
          ),
        )}
      </ol>
    </nav>
  );
}
