/**
 * The grid view: thumbnails (the `thumb` URLs of the listing; SVGs as themselves) in rows that fill the width.
 * Only the rows in view (plus a few) are in the DOM, so a folder of 10,000 images scrolls smoothly, and
 * thumbnails load as their row scrolls into view.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { extension, formatBytes } from '../../lib/format.js';
import type { Obj } from '../../types.js';

const CELL = 168; // px, the cell's width and the row's height step
const GAP = 12;

export interface FileGridProps {
  items: Obj[];
  selected: ReadonlySet<string>;
  onSelect: (names: Set<string>) => void;
  onOpen: (obj: Obj) => void;
  /** The file's own link (SVGs are shown through it, as an image). */
  downloadUrl: (obj: Obj) => string;
}

export function FileGrid({ items, selected, onSelect, onOpen, downloadUrl }: FileGridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [columns, setColumns] = useState(4);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setColumns(Math.max(1, Math.floor((el.clientWidth + GAP) / (CELL + GAP))));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const rows = Math.ceil(items.length / columns);
  const virtual = useVirtualizer({ count: rows, getScrollElement: () => scroller.current, estimateSize: () => CELL + 40 + GAP, overscan: 3 });

  const toggle = (name: string) => {
    const next = new Set(selected);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    onSelect(next);
  };

  return (
    <div ref={scroller} className="file-grid-scroller" role="list" aria-label="Files">
      <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
        {virtual.getVirtualItems().map((row) => (
          <div key={row.key} className="file-grid-row" style={{ transform: `translateY(${row.start}px)`, gridTemplateColumns: `repeat(${columns}, ${CELL}px)` }}>
            {items.slice(row.index * columns, row.index * columns + columns).map((o) => (
              <div key={o.name} role="listitem" className="file-cell" aria-selected={selected.has(o.name)} data-name={o.name}>
                <button type="button" className="file-cell-open" onClick={() => onOpen(o)} title={o.name}>
                  <Preview obj={o} downloadUrl={downloadUrl} />
                  <span className="file-cell-name">{o.name}</span>
                  <span className="file-cell-meta">{o.is_dir ? 'Folder' : formatBytes(o.size)}</span>
                </button>
                <input type="checkbox" className="file-cell-check" aria-label={`Select ${o.name}`} checked={selected.has(o.name)} onChange={() => toggle(o.name)} />
              </div>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}

function Preview({ obj, downloadUrl }: { obj: Obj; downloadUrl: (obj: Obj) => string }) {
  const [failed, setFailed] = useState(false);
  const src = obj.thumb || (!obj.is_dir && extension(obj.name) === 'svg' ? downloadUrl(obj) : '');
  if (src && !failed) return <img className="file-cell-thumb" src={src} alt="" loading="lazy" decoding="async" onError={() => setFailed(true)} />;
  return (
    <span className={obj.is_dir ? 'file-cell-thumb file-icon dir' : 'file-cell-thumb file-icon'} aria-hidden="true">
      {obj.is_dir ? '' : extension(obj.name).slice(0, 4)}
    </span>
  );
}
