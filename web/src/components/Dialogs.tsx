/**
 * Promise-based dialogs. `const { confirm, prompt } = useDialogs();`
 *  - `await confirm({ title, message, confirmLabel, danger })` → boolean (opens with the focus on
 *    the confirm button, or on Cancel when `danger`: Enter alone never destroys anything)
 *  - `await prompt({ title, label, initial, confirmLabel, validate })` → string | null
 *    (`validate` returns an inline error message or null).
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Modal, ModalActions } from './Modal.js';
import { TextField } from './Field.js';

export interface ConfirmOptions {
  title: string;
  message: ReactNode;
  confirmLabel?: string;
  danger?: boolean;
}
export interface PromptOptions {
  title: string;
  label: string;
  initial?: string;
  confirmLabel?: string;
  validate?: (value: string) => string | null;
}

interface Dialogs {
  confirm(o: ConfirmOptions): Promise<boolean>;
  prompt(o: PromptOptions): Promise<string | null>;
}

type Pending =
  | { kind: 'confirm'; o: ConfirmOptions; resolve: (v: boolean) => void }
  | { kind: 'prompt'; o: PromptOptions; resolve: (v: string | null) => void };

const DialogContext = createContext<Dialogs | null>(null);

export function useDialogs(): Dialogs {
  const d = useContext(DialogContext);
  if (!d) throw new Error('useDialogs outside <DialogProvider>');
  return d;
}

export function DialogProvider({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<Pending | null>(null);
  const confirm = useCallback((o: ConfirmOptions) => new Promise<boolean>((resolve) => setPending({ kind: 'confirm', o, resolve })), []);
  const prompt = useCallback((o: PromptOptions) => new Promise<string | null>((resolve) => setPending({ kind: 'prompt', o, resolve })), []);
  const value = useMemo(() => ({ confirm, prompt }), [confirm, prompt]);
  /** Closes the dialog, then answers the caller's promise. */
  const settle =
    <T,>(resolve: (v: T) => void) =>
    (v: T) => {
      setPending(null);
      resolve(v);
    };

  return (
    <DialogContext.Provider value={value}>
      {children}
      {pending?.kind === 'confirm' && <ConfirmDialog o={pending.o} done={settle(pending.resolve)} />}
      {pending?.kind === 'prompt' && <PromptDialog o={pending.o} done={settle(pending.resolve)} />}
    </DialogContext.Provider>
  );
}

function ConfirmDialog({ o, done }: { o: ConfirmOptions; done: (v: boolean) => void }) {
  return (
    <Modal
      open
      title={o.title}
      onClose={() => done(false)}
      onSubmit={() => done(true)}
      footer={<ModalActions onCancel={() => done(false)} submitLabel={o.confirmLabel ?? 'OK'} danger={o.danger} focus={o.danger ? 'cancel' : 'submit'} />}
    >
      <div className="confirm-message">{o.message}</div>
    </Modal>
  );
}

function PromptDialog({ o, done }: { o: PromptOptions; done: (v: string | null) => void }) {
  const [value, setValue] = useState(o.initial ?? '');
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  // Once, on open: select the name without its extension, as file managers do.
  useEffect(() => {
    const el = input.current;
    if (!el) return;
    el.focus();
    const dot = el.value.lastIndexOf('.');
    el.setSelectionRange(0, dot > 0 ? dot : el.value.length);
  }, []);
  const submit = () => {
    const problem = o.validate?.(value) ?? null;
    if (problem) setError(problem);
    else done(value);
  };
  return (
    <Modal
      open
      title={o.title}
      onClose={() => done(null)}
      onSubmit={submit}
      footer={<ModalActions onCancel={() => done(null)} submitLabel={o.confirmLabel ?? 'OK'} />}
    >
      <TextField
        label={o.label}
        value={value}
        inputRef={input}
        error={error}
        onChange={(v) => {
          setValue(v);
          setError(null);
        }}
      />
    </Modal>
  );
}
