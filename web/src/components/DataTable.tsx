/**
 * A table in its scrolling card: `<DataTable columns={['Name', { label: 'Size', className: 'num' }, ACTIONS]}>rows</DataTable>`.
 * A column is its header text, or `{ label, className, sort }` (`sort` becomes `aria-sort`);
 * `footer` goes under the table, inside the card. `<RowActions>` is a row's right-aligned buttons,
 * each a `<RowButton label name onClick tone/>` (`name` is its accessible name, e.g. "Edit alice").
 */
import type { CSSProperties, ReactNode } from 'react';

export type Column = string | { label: ReactNode; className?: string; sort?: 'ascending' | 'descending' | 'none' };

/** The last column, holding each row's buttons (named for screen readers only). */
export const ACTIONS: Exclude<Column, string> = { label: <span className="sr-only">Actions</span>, className: 'actions' };

export function DataTable({
  columns,
  className,
  footer,
  style,
  children,
}: {
  columns: readonly Column[];
  className?: string;
  footer?: ReactNode;
  style?: CSSProperties;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap" style={style}>
      <table className={className ? `table ${className}` : 'table'}>
        <thead>
          <tr>
            {columns.map((c, i) =>
              typeof c === 'string' ? (
                <th key={i} scope="col">
                  {c}
                </th>
              ) : (
                <th key={i} scope="col" className={c.className} aria-sort={c.sort}>
                  {c.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {footer}
    </div>
  );
}

/** The actions cell of a row: its buttons side by side at the right (stacked on a phone). */
export function RowActions({ className, children }: { className?: string; children: ReactNode }) {
  return (
    <td className={className ? `actions ${className}` : 'actions'}>
      <div className="row-actions">{children}</div>
    </td>
  );
}

/** A small button of a row: `label` shows, `name` (naming the row too) is what assistive tech reads. */
export function RowButton({
  label,
  name,
  onClick,
  tone,
  disabled,
  title,
}: {
  label: string;
  name: string;
  onClick: () => void;
  tone?: 'danger' | 'ghost';
  disabled?: boolean;
  title?: string;
}) {
  return (
    <button type="button" className={tone ? `btn btn-small btn-${tone}` : 'btn btn-small'} onClick={onClick} disabled={disabled} title={title} aria-label={name}>
      {label}
    </button>
  );
}
