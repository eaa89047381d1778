/**
 * Notifications. `const toast = useToast(); toast.success('Saved'); toast.error(err)` — errors
 * accept any thrown value (ApiError messages are shown as the server wrote them).
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../api.js';

type Kind = 'success' | 'error' | 'info';
interface Item {
  id: number;
  kind: Kind;
  text: string;
}

export interface Toaster {
  success(text: string): void;
  info(text: string): void;
  error(err: unknown): void;
}

const ToastContext = createContext<Toaster | null>(null);

export function useToast(): Toaster {
  const t = useContext(ToastContext);
  if (!t) throw new Error('useToast outside <ToastProvider>');
  return t;
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<Item[]>([]);
  const next = useRef(1);

  const dismiss = useCallback((id: number) => setItems((xs) => xs.filter((x) => x.id !== id)), []);
  const push = useCallback(
    (kind: Kind, text: string) => {
      const id = next.current++;
      setItems((xs) => [...xs.slice(-4), { id, kind, text }]);
      window.setTimeout(() => dismiss(id), kind === 'error' ? 9000 : 4500);
    },
    [dismiss],
  );
  const api = useMemo<Toaster>(
    () => ({
      success: (t) => push('success', t),
      info: (t) => push('info', t),
      error: (e) => push('error', errorMessage(e)),
    }),
    [push],
  );

  return (
    <ToastContext.Provider value={api}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {items.map((t) => (
          <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : undefined}>
            <span className="toast-text">{t.text}</span>
            <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
