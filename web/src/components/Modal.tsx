/**
 * A modal dialog on the native <dialog> (focus trap, Escape to close).
 * `<Modal open title="…" onClose={…} footer={<buttons/>}>body</Modal>`; wrap a form with
 * `as="form"` + `onSubmit` so Enter submits.
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

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
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
