/**
 * Name search on the files page (shown unless the `search_index` public setting is "none"): below the current
 * folder or everywhere; each result shows its folder, opens (folders; seed files in the preview), downloads (files,
 * through a signed link from fs/get) or opens the folder holding it.
 */
import { useState, type FormEvent } from 'react';
import { api, errorMessage } from '../../api.js';
import { InlineError } from '../../components/ui.js';
import { formatBytes, isSeedFile, joinPath } from '../../lib/format.js';
import { href, Link, useNavigate } from '../../router.js';
import { filesHref } from '../../routes.js';
import type { SearchHit, SearchResult } from '../../types.js';

const PER_PAGE = 100;

export function SearchBox({ path }: { path: string }) {
  const navigate = useNavigate();
  const [keywords, setKeywords] = useState('');
  const [where, setWhere] = useState<'here' | 'all'>('here');
  const [result, setResult] = useState<(SearchResult & { query: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const q = keywords.trim();
    if (!q) return;
    setBusy(true);
    try {
      const r = await api.post<SearchResult>('/api/fs/search', { parent: where === 'here' ? path : '/', keywords: q, scope: 0, page: 1, per_page: PER_PAGE });
      setResult({ ...r, query: q });
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
      setResult(null);
    } finally {
      setBusy(false);
    }
  };

  const download = async (hit: SearchHit) => {
    try {
      const obj = await api.post<{ raw_url: string }>('/api/fs/get', { path: joinPath(hit.parent, hit.name) });
      window.location.assign(obj.raw_url);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const open = (hit: SearchHit) => {
    const full = joinPath(hit.parent, hit.name);
    if (hit.is_dir) navigate(filesHref(full));
    else if (isSeedFile(hit.name)) navigate(href('/preview', { path: full }));
    else void download(hit);
  };

  return (
    <div className="card search-box">
      <form role="search" aria-label="Search files" onSubmit={(e) => void submit(e)} className="search-form">
        <input className="input" type="search" placeholder="Search by name…" aria-label="Search by name" value={keywords} onChange={(e) => setKeywords(e.target.value)} maxLength={256} />
        <select className="input" aria-label="Search where" value={where} onChange={(e) => setWhere(e.target.value as 'here' | 'all')}>
          <option value="here">In this folder</option>
          <option value="all">Everywhere</option>
        </select>
        <button type="submit" className="btn" disabled={busy || !keywords.trim()}>
          Search
        </button>
        {result && (
          <button type="button" className="btn btn-ghost" onClick={() => setResult(null)}>
            Close results
          </button>
        )}
      </form>
      <InlineError error={error} />
      {result && (
        <section aria-label="Search results">
          <p className="muted">
            {result.total === 0 ? `Nothing matches “${result.query}”.` : `${result.total} match${result.total === 1 ? '' : 'es'} for “${result.query}”${result.total > result.content.length ? ` (first ${result.content.length} shown)` : ''}.`}
          </p>
          <ul className="search-results">
            {result.content.map((hit) => (
              <li key={`${hit.parent}/${hit.name}`} data-testid="search-hit">
                <button type="button" className="link-button" onClick={() => open(hit)}>
                  {hit.name}
                </button>{' '}
                {hit.is_dir && <span className="badge">folder</span>}{' '}
                <span className="muted">
                  in <Link to={filesHref(hit.parent)}>{hit.parent}</Link>
                  {!hit.is_dir && ` · ${formatBytes(hit.size)}`}
                </span>{' '}
                {!hit.is_dir && (
                  <button type="button" className="btn btn-small" onClick={() => void download(hit)}>
                    Download
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
