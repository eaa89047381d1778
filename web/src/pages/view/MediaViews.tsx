/** Image (zoom), video/audio (the browser's players over range requests, subtitles beside the video) and PDF viewers. */
import { useEffect, useState } from 'react';
import { inlineUrl } from '../../lib/fileKinds.js';
import type { Obj } from '../../types.js';

const ZOOMS = [0.25, 0.5, 1, 1.5, 2, 4];

/** SVG too goes through `<img>` only: an image never runs its scripts. */
export function ImageView({ url, name }: { url: string; name: string }) {
  // null = fit the window; a number = that many image pixels per CSS pixel
  const [zoom, setZoom] = useState<number | null>(null);
  const [natural, setNatural] = useState(0);
  const step = (dir: 1 | -1) =>
    setZoom((z) => {
      const cur = z ?? 1;
      const i = ZOOMS.findIndex((v) => v >= cur);
      const at = i < 0 ? ZOOMS.length - 1 : i;
      return ZOOMS[Math.min(ZOOMS.length - 1, Math.max(0, at + dir))]!;
    });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '+' || e.key === '=') step(1);
      else if (e.key === '-') step(-1);
      else if (e.key === '0') setZoom(null);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="card viewer-image">
      <div className="viewer-toolbar" role="toolbar" aria-label="Zoom">
        <button type="button" className="btn btn-small" onClick={() => step(-1)} aria-label="Zoom out">−</button>
        <button type="button" className="btn btn-small" onClick={() => setZoom(null)} aria-pressed={zoom === null}>Fit</button>
        <button type="button" className="btn btn-small" onClick={() => setZoom(1)} aria-pressed={zoom === 1}>100%</button>
        <button type="button" className="btn btn-small" onClick={() => step(1)} aria-label="Zoom in">+</button>
      </div>
      <div className={zoom === null ? 'viewer-stage fit' : 'viewer-stage'}>
        <img
          src={inlineUrl(url)}
          alt={name}
          onLoad={(e) => setNatural(e.currentTarget.naturalWidth)}
          style={zoom === null || natural === 0 ? undefined : { width: `${natural * zoom}px`, maxWidth: 'none' }}
        />
      </div>
    </div>
  );
}

const stem = (name: string) => name.replace(/\.[^.]+$/, '');

/** `.srt` → WebVTT (timestamps use `.`; the rest is compatible). */
export function srtToVtt(srt: string): string {
  return 'WEBVTT\n\n' + srt.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').replace(/(\d\d:\d\d:\d\d),(\d{3})/g, '$1.$2');
}

interface Track {
  label: string;
  src: string;
}

/** Subtitles next to the video (`movie.vtt`, `movie.en.srt` …), fetched and handed to the player as blob URLs. */
function useSubtitles(obj: Obj, siblings: Obj[], urlOf: (o: Obj) => string): Track[] {
  const [tracks, setTracks] = useState<Track[]>([]);
  useEffect(() => {
    const base = stem(obj.name);
    const subs = siblings.filter((o) => !o.is_dir && /\.(vtt|srt)$/i.test(o.name) && (stem(o.name) === base || stem(stem(o.name)) === base));
    if (subs.length === 0) return;
    let live = true;
    const urls: string[] = [];
    void Promise.all(
      subs.map(async (s) => {
        const text = await (await fetch(urlOf(s))).text();
        const vtt = /\.srt$/i.test(s.name) ? srtToVtt(text) : text;
        const src = URL.createObjectURL(new Blob([vtt], { type: 'text/vtt' }));
        urls.push(src);
        const lang = stem(s.name).slice(base.length + 1);
        return { label: lang || s.name, src };
      }),
    ).then((t) => live && setTracks(t), () => {});
    return () => {
      live = false;
      urls.forEach((u) => URL.revokeObjectURL(u));
    };
  }, [obj.name, siblings, urlOf]);
  return tracks;
}

/** `urlOf` gives the link of a file of the same folder (subtitles); it should be stable (useCallback). */
export function MediaView({ kind, url, obj, siblings, urlOf }: { kind: 'video' | 'audio'; url: string; obj: Obj; siblings: Obj[]; urlOf: (o: Obj) => string }) {
  const tracks = useSubtitles(obj, siblings, urlOf);
  if (kind === 'audio') return <div className="card"><audio controls preload="metadata" src={inlineUrl(url)} aria-label={obj.name} /></div>;
  return (
    <div className="card viewer-video">
      <video controls preload="metadata" src={inlineUrl(url)} aria-label={obj.name}>
        {tracks.map((t, i) => (
          <track key={t.src} kind="subtitles" label={t.label} src={t.src} default={i === 0} />
        ))}
      </video>
    </div>
  );
}

/** The browser's own PDF viewer in a frame (the file's response allows framing by this origin only). */
export function PdfView({ url, name }: { url: string; name: string }) {
  return (
    <div className="card viewer-pdf">
      <iframe title={name} src={inlineUrl(url)} />
    </div>
  );
}
