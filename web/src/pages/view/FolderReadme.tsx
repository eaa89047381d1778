/** A folder's `README.md` (any case), rendered under its listing — for users and share visitors. */
import { lazy, Suspense } from 'react';
import { Spinner } from '../../components/ui.js';
import type { Obj } from '../../types.js';

/** Markdown (marked + DOMPurify) loads only when a folder has a README. */
const MarkdownView = lazy(() => import('./MarkdownView.js'));

export function findReadme(items: Obj[]): Obj | undefined {
  return items.find((o) => !o.is_dir && o.name.toLowerCase() === 'readme.md');
}

export function FolderReadme({ items, urlOf }: { items: Obj[]; urlOf: (o: Obj) => string }) {
  const readme = findReadme(items);
  if (!readme) return null;
  return (
    <section className="readme" aria-label="README">
      <Suspense fallback={<Spinner />}>
        <MarkdownView key={readme.name + readme.modified} url={urlOf(readme)} size={readme.size} />
      </Suspense>
    </section>
  );
}
