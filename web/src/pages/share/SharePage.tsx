/**
 * `/s/<id>/<path>`: what a share's visitors see, without signing in. A folder lists its entries
 * (README.md rendered below, as in the file browser); a file opens in the viewer (`?view=1`, or a
 * share of one file). Listings come from `POST /api/share/public/list`, files from `/sd/<id>/…`.
 * A share with a password asks for it once; it is kept for this tab (sessionStorage).
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage } from '../../api.js';
import { TextField } from '../../components/Field.js';
import { EmptyState, InlineError, PageHeader, Spinner } from '../../components/ui.js';
import { baseName, encodePath, joinPath, parentPath } from '../../lib/format.js';
import { useNavigate, useParams, useSearchParams, useSplatPath } from '../../router.js';
import { shareHref } from '../../routes.js';
import type { Obj } from '../../types.js';
import { Breadcrumb } from '../files/Breadcrumb.js';
import { FileTable, sortObjs, type Sort } from '../files/FileTable.js';
import { FileViewer } from '../view/FileViewer.js';
import { FolderReadme } from '../view/FolderReadme.js';
import '../view/viewer.css';


interface ShareEntry {
  name: string;
  size: number;
  is_dir: boolean;
  modified: string;
}
interface ShareList {
  is_dir: boolean;
  content: ShareEntry[];
}

/** A share entry in the shape the file views take (no sign, thumbnail or hashes for visitors). */
const toObj = (e: ShareEntry): Obj => ({ ...e, created: e.modified, sign: '', thumb: '', type: 0, hashinfo: '', hash_info: null });

const pwdKey = (id: string) => `ferry.share.${id}`;
function savedPwd(id: string): string {
  try {
    return sessionStorage.getItem(pwdKey(id)) ?? '';
  } catch {
    return '';
  }
}

function useShareList(id: string, path: string, pwd: string) {
  return useQuery({
    queryKey: ['share', id, path, pwd],
    queryFn: ({ signal }) => api.post<ShareList>('/api/share/public/list', { id, path, pwd: pwd || undefined }, { auth: false, signal }),
    select: (l) => ({ isDir: l.is_dir, items: l.content.map(toObj) }),
  });
}

export default function SharePage() {
  const id = useParams<'id'>().id ?? '';
  const path = useSplatPath(2);
  const [query] = useSearchParams();
  const viewing = query.get('view') === '1';
  const [pwd, setPwd] = useState(() => savedPwd(id));
  // The viewer lists the file's folder (for ←/→); a folder page lists itself.
  const dir = viewing ? parentPath(path) : path;
  const list = useShareList(id, dir, pwd);
  const urlOf = useCallback(
    (o: Obj) => `/sd/${encodeURIComponent(id)}${encodePath(joinPath(list.data?.isDir === false ? '/' : dir, o.name))}${pwd ? `?pwd=${encodeURIComponent(pwd)}` : ''}`,
    [id, dir, pwd, list.data?.isDir],
  );

  const locked = list.error instanceof ApiError && list.error.code === 403 && list.error.message === 'wrong share code';
  let body;
  if (locked) {
    body = (
      <PasswordForm
        wrong={pwd !== ''}
        onSubmit={(p) => {
          try {
            sessionStorage.setItem(pwdKey(id), p);
          } catch {
            // kept for this page only
          }
          setPwd(p);
        }}
      />
    );
  } else if (viewing || list.data?.isDir === false) {
    // A file: the one `?view=1` names, or the single file of the share.
    const name = viewing ? baseName(path) : (list.data?.items[0]?.name ?? '');
    body = (
      <FileViewer
        name={name}
        items={list.data?.items}
        error={list.error ? errorMessage(list.error) : null}
        urlOf={urlOf}
        viewHrefOf={(n) => shareHref(id, joinPath(dir, n), { view: '1' })}
        back={{ href: shareHref(id, dir), label: dir === '/' ? 'the share' : baseName(dir) }}
      />
    );
  } else {
    body = <ShareFolder id={id} path={path} items={list.data?.items} error={list.error ? errorMessage(list.error) : null} urlOf={urlOf} />;
  }
  return (
    <div className="app share-app">
      <header className="topbar">
        <span className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Shared files
        </span>
      </header>
      <main className="main" id="main">
        {body}
      </main>
    </div>
  );
}

function ShareFolder({ id, path, items, error, urlOf }: { id: string; path: string; items: Obj[] | undefined; error: string | null; urlOf: (o: Obj) => string }) {
  const navigate = useNavigate();
  const [sort, setSort] = useState<Sort>({ key: 'name', dir: 1 });
  const sorted = useMemo(() => sortObjs(items ?? [], sort), [items, sort]);
  const open = (o: Obj) => navigate(o.is_dir ? shareHref(id, joinPath(path, o.name)) : shareHref(id, joinPath(path, o.name), { view: '1' }));
  return (
    <section aria-label="Shared folder">
      <PageHeader title={path === '/' ? 'Shared folder' : baseName(path)} />
      <div className="files-bar">
        <Breadcrumb path={path} root="Share" hrefOf={(p) => shareHref(id, p)} />
      </div>
      {error ? (
        <div className="card">
          <InlineError error={error} />
        </div>
      ) : !items ? (
        <Spinner />
      ) : sorted.length === 0 ? (
        <div className="card">
          <EmptyState title="This folder is empty" />
        </div>
      ) : (
        <FileTable items={sorted} sort={sort} onSort={setSort} onOpen={open} downloadUrl={urlOf} />
      )}
      <FolderReadme items={sorted} urlOf={urlOf} />
    </section>
  );
}

function PasswordForm({ wrong, onSubmit }: { wrong: boolean; onSubmit: (pwd: string) => void }) {
  const [value, setValue] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value !== '') onSubmit(value);
  };
  return (
    <form className="card share-password" onSubmit={submit}>
      <PageHeader title="This share has a password" />
      <TextField label="Password" type="password" value={value} onChange={setValue} autoFocus error={wrong ? 'That password is not right. Try again.' : null} />
      <button type="submit" className="btn btn-primary">
        Open
      </button>
    </form>
  );
}
