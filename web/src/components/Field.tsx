/**
 * Labelled form controls with hint and inline error, all keyboard-accessible:
 * `<TextField label value onChange error hint type …/>`, `<TextArea …/>`, `<SelectField options …/>`,
 * `<CheckboxField label checked onChange hint/>`. `<FieldFrame>` is the shared wrapper (label,
 * hint, error and the ids that tie them to the control) for controls of one's own.
 */
import { useId, type InputHTMLAttributes, type ReactNode, type Ref, type TextareaHTMLAttributes } from 'react';

interface Common {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
}

/** What a control inside `<FieldFrame>` spreads onto itself. */
export interface ControlProps {
  id: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

function Messages({ id, hint, error }: { id: string; hint?: ReactNode; error?: string | null }) {
  return (
    <>
      {hint && (
        <div className="field-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={`${id}-err`} role="alert">
          {error}
        </div>
      )}
    </>
  );
}

/** `<div class="field">`: the label, the control (`children(props)`), hint and error, then `after`. */
export function FieldFrame({
  label,
  hint,
  error,
  className,
  after,
  children,
}: Common & { className?: string; after?: ReactNode; children: (control: ControlProps) => ReactNode }) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      <Messages id={id} hint={hint} error={error} />
      {after}
    </div>
  );
}

export function TextField({
  label,
  hint,
  error,
  value,
  onChange,
  inputRef,
  ...rest
}: Common & { value: string; onChange: (v: string) => void; inputRef?: Ref<HTMLInputElement> } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  return (
    <FieldFrame label={label} hint={hint} error={error}>
      {(control) => <input ref={inputRef} {...control} value={value} onChange={(e) => onChange(e.target.value)} {...rest} />}
    </FieldFrame>
  );
}

export function TextArea({
  label,
  hint,
  error,
  value,
  onChange,
  ...rest
}: Common & { value: string; onChange: (v: string) => void } & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'value' | 'onChange'>) {
  return (
    <FieldFrame label={label} hint={hint} error={error}>
      {(control) => <textarea {...control} value={value} onChange={(e) => onChange(e.target.value)} {...rest} />}
    </FieldFrame>
  );
}

export function SelectField({
  label,
  hint,
  error,
  value,
  onChange,
  options,
  disabled,
}: Common & { value: string; onChange: (v: string) => void; options: readonly (string | { value: string; label: string })[]; disabled?: boolean }) {
  return (
    <FieldFrame label={label} hint={hint} error={error}>
      {(control) => (
        <select {...control} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
          {options.map((o) => {
            const v = typeof o === 'string' ? o : o.value;
            return (
              <option key={v} value={v}>
                {typeof o === 'string' ? o : o.label}
              </option>
            );
          })}
        </select>
      )}
    </FieldFrame>
  );
}

export function CheckboxField({
  label,
  hint,
  checked,
  onChange,
  disabled,
}: { label: ReactNode; hint?: ReactNode; checked: boolean; onChange: (v: boolean) => void; disabled?: boolean }) {
  const id = useId();
  return (
    <div className="field field-check">
      <input id={id} type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <div className="field-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
    </div>
  );
}
