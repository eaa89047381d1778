/**
 * The listing: checkbox selection (shift-click selects a range), sortable columns, open and download.
 * Only the rows in view (plus a few) are in the DOM, between two spacer rows that keep the page's
 * height, so a folder of 10,000 entries opens and scrolls at once; the page itself scrolls.
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef, useState, type MouseEvent } from 'react';
import { extension, formatBytes, formatDate, isSeedFile } from '../../lib/format.js';
import { ACTIONS, DataTable, RowActions, type Column } from '../../components/DataTable.js';
import type { Obj } from '../../types.js';

export type SortKey = 'name' | 'size' | 'modified';
export interface Sort {
  key: SortKey;
  dir: 1 | -1;
}

export function sortObjs(items: Obj[], sort: Sort): Obj[] {
  const cmp = (a: Obj, b: Obj) => {
    if (a.is_dir !== b.is_dir) return a.is_dir ? -1 : 1;
    let d = 0;
    if (sort.key === 'size') d = a.size - b.size;
    else if (sort.key === 'modified') d = Date.parse(a.modified) - Date.parse(b.modified);
    if (d === 0) d = a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' });
    return d * sort.dir;
  };
  return [...items].sort(cmp);
}

function Icon({ obj }: { obj: Obj }) {
  if (obj.is_dir) return <span className="file-icon dir" aria-hidden="true" />;
  const ext = extension(obj.name).slice(0, 4);
  return (
    <span className={isSeedFile(obj.name) ? 'file-icon seed' : 'file-icon'} aria-hidden="true">
      {ext}
    </span>
  );
}

const ACTIONS_SM: Column = { ...ACTIONS, className: 'actions hide-sm' };

export interface FileTableProps {
  items: Obj[];
  sort: Sort;
  onSort: (s: Sort) => void;
  /** Without them (share visitors) the table has no checkboxes. */
  selected?: ReadonlySet<string>;
  onSelect?: (names: Set<string>) => void;
  onOpen: (obj: Obj) => void;
  downloadUrl: (obj: Obj) => string;
}

const NONE: ReadonlySet<string> = new Set();
const ROW = 41; // px, a row's usual height (rows are measured once shown)
const OVERSCAN = 10;

export function FileTable({ items, sort, onSort, selected = NONE, onSelect, onOpen, downloadUrl }: FileTableProps) {
  const anchor = useRef<number | null>(null);
  const allSelected = items.length > 0 && items.every((o) => selected.has(o.name));
  // Where the rows start on the page: the top spacer sits at the top of the body whatever its height.
  const top = useRef<HTMLTableRowElement>(null);
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const y = top.current ? top.current.getBoundingClientRect().top + window.scrollY : 0;
    if (Math.abs(y - margin) > 1) setMargin(y);
  });
  const virtual = useWindowVirtualizer({ count: items.length, estimateSize: () => ROW, overscan: OVERSCAN, scrollMargin: margin, getItemKey: (i) => items[i]!.name });
  const rows = virtual.getVirtualItems();
  const before = rows.length ? rows[0]!.start - margin : 0;
  const after = rows.length ? virtual.getTotalSize() - (rows[rows.length - 1]!.end - margin) : 0;
  const columns = onSelect ? 5 : 4;

  const toggle = (index: number, e: MouseEvent<HTMLInputElement>) => {
    const name = items[index]!.name;
    const next = new Set(selected);
    const on = !selected.has(name);
    if (e.shiftKey && anchor.current !== null) {
      const [a, b] = anchor.current < index ? [anchor.current, index] : [index, anchor.current];
      for (let i = a; i <= b; i++) {
        if (on) next.add(items[i]!.name);
        else next.delete(items[i]!.name);
      }
    } else if (on) next.add(name);
    else next.delete(name);
    anchor.current = index;
    onSelect?.(next);
  };

  const header = (key: SortKey, label: string, className?: string): Column => ({
    className,
    sort: sort.key === key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none',
    label: (
      <button
        type="button"
        className="sort-btn"
        aria-pressed={sort.key === key}
        onClick={() => onSort({ key, dir: sort.key === key ? (sort.dir === 1 ? -1 : 1) : 1 })}
      >
        {label}
        {sort.key === key ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}
      </button>
    ),
  });
  const selectAll: Column = {
    className: 'check',
    label: <input type="checkbox" aria-label="Select all" checked={allSelected} onChange={() => onSelect?.(allSelected ? new Set() : new Set(items.map((o) => o.name)))} />,
  };

  return (
    <DataTable className="files-table" columns={[...(onSelect ? [selectAll] : []), header('name', 'Name'), header('size', 'Size', 'num'), header('modified', 'Modified', 'hide-sm'), ACTIONS_SM]}>
      <tr ref={top} className="spacer-row" aria-hidden="true" style={{ height: before }}>
        <td colSpan={columns} />
      </tr>
      {rows.map(({ index: i }) => {
        const o = items[i]!;
        return (
        <tr key={o.name} ref={virtual.measureElement} data-index={i} aria-selected={selected.has(o.name)} data-name={o.name}>
          {onSelect && (
            <td className="check">
              <input type="checkbox" aria-label={`Select ${o.name}`} checked={selected.has(o.name)} onClick={(e) => toggle(i, e)} onChange={() => {}} />
            </td>
          )}
          <td>
            <div className="file-name">
              <Icon obj={o} />
              <button type="button" className="link-btn" onClick={() => onOpen(o)}>
                {o.name}
              </button>
            </div>
          </td>
          <td className="num">{o.is_dir ? '—' : formatBytes(o.size)}</td>
          <td className="nowrap hide-sm">{formatDate(o.modified)}</td>
          <RowActions className="hide-sm">
            {!o.is_dir && (
              <a className="btn btn-small btn-ghost" href={downloadUrl(o)} download={o.name} aria-label={`Download ${o.name}`}>
                Download
              </a>
            )}
          </RowActions>
        </tr>
        );
      })}
      <tr className="spacer-row" aria-hidden="true" style={{ height: after }}>
        <td colSpan={columns} />
      </tr>
    </DataTable>
  );
}
