import { Link } from '../../router.js';
import { filesHref } from '../../routes.js';

/** Home / a / b — each part links to its folder (`hrefOf`, the file browser's by default); the last is the current page. */
export function Breadcrumb({ path, onNavigate, hrefOf = filesHref, root = 'Home' }: { path: string; onNavigate?: (p: string) => void; hrefOf?: (p: string) => string; root?: string }) {
  const segs = path.split('/').filter(Boolean);
  const crumbs = [{ name: root, path: '/' }, ...segs.map((s, i) => ({ name: s, path: '/' + segs.slice(0, i + 1).join('/') }))];
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
                <Link to={hrefOf(c.path)}>{c.name}</Link>
              )}
            </li>
          ),
        )}
      </ol>
    </nav>
  );
}
