/** Small shared pieces: page header, spinner, empty state, list states, inline error, copy button, badge. */
import { useState, type ReactNode } from 'react';

export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="muted">{subtitle}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </div>
  );
}

export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="spinner-wrap" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <div className="muted">{children}</div>}
    </div>
  );
}

/**
 * A loaded list's states: a spinner while `items` is null (nothing once `failed`), `empty` when
 * there are none, else `children(items)`.
 */
export function ListView<T>({
  items,
  failed,
  empty,
  children,
}: {
  items: readonly T[] | null;
  failed?: boolean;
  empty: ReactNode;
  children: (items: readonly T[]) => ReactNode;
}) {
  if (items === null) return failed ? null : <Spinner />;
  return <>{items.length === 0 ? empty : children(items)}</>;
}

export function InlineError({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <div className="inline-error" role="alert">
      {error}
    </div>
  );
}

/** Copies `text` to the clipboard (falls back to a hidden textarea where the API is missing). */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // fall through to the old way
    }
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  document.execCommand('copy');
  ta.remove();
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-small"
      onClick={async () => {
        await copyText(text);
        setDone(true);
        window.setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

export function Badge({ tone = 'neutral', children }: { tone?: 'neutral' | 'ok' | 'warn' | 'bad'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}
