/**
 * A modal dialog on the native <dialog> (focus trap, Escape to close; it opens with the focus on
 * its first field or `[data-autofocus]` element, and gives the focus back to the opener on close).
 * `<Modal open title="…" onClose={…} footer={<buttons/>}>body</Modal>`; wrap a form with
 * `as="form"` + `onSubmit` so Enter submits; `footer={<ModalActions onCancel submitLabel/>}` is the
 * usual Cancel + submit pair.
 */
import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react';

export interface ModalProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  /** Render the body + footer inside a <form>; Enter submits. */
  onSubmit?: () => void;
  wide?: boolean;
}

export function Modal({ open, title, onClose, children, footer, onSubmit, wide }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  // Closing hands the focus back to what had it before (the button that opened the dialog).
  useEffect(() => {
    if (!open) return;
    const before = document.activeElement;
    return () => {
      if (before instanceof HTMLElement && before.isConnected) before.focus();
    };
  }, [open]);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      // The first field, or the button marked data-autofocus, rather than the close button.
      (d.querySelector<HTMLElement>('[data-autofocus]') ?? d.querySelector<HTMLElement>('.modal-body :is(input, select, textarea):not(:disabled)'))?.focus();
    }
    if (!open && d.open) d.close();
  }, [open]);

  if (!open) return null;
  const inner = (
    <>
      <header className="modal-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon-btn" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="modal-body">{children}</div>
      {footer && <footer className="modal-foot">{footer}</footer>}
    </>
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit?.();
  };
  return (
    <dialog
      ref={ref}
      className={wide ? 'modal modal-wide' : 'modal'}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        if (e.target === ref.current) onClose();
      }}
    >
      {onSubmit ? (
        <form className="modal-form" onSubmit={submit} noValidate>
          {inner}
        </form>
      ) : (
        inner
      )}
    </dialog>
  );
}

/** The footer of a form dialog: Cancel, then the submit button (primary, or danger); `focus` picks the one the dialog opens on. */
export function ModalActions({
  onCancel,
  submitLabel,
  disabled,
  danger,
  focus,
}: {
  onCancel: () => void;
  submitLabel: ReactNode;
  disabled?: boolean;
  danger?: boolean;
  focus?: 'cancel' | 'submit';
}) {
  return (
    <>
      <button type="button" className="btn" onClick={onCancel} data-autofocus={focus === 'cancel' || undefined}>
        Cancel
      </button>
      <button type="submit" className={danger ? 'btn btn-danger' : 'btn btn-primary'} disabled={disabled} data-autofocus={focus === 'submit' || undefined}>
        {submitLabel}
      </button>
    </>
  );
}
