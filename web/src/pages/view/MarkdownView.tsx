/** Markdown: rendered, then sanitised (used by the viewer and for a folder's README). */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { useEffect, useState } from 'react';
import { errorMessage } from '../../api.js';
import { InlineError, Spinner } from '../../components/ui.js';
import { readRange } from '../../lib/ranges.js';

const MARKDOWN_LIMIT = 2 * 1024 * 1024;

/**
 * `on…=` attributes in the Markdown's raw HTML, dropped before DOMPurify parses it. Not a defence (DOMPurify is,
 * and the page's CSP behind it): Chromium reports a CSP violation for each handler attribute even in the inert
 * document DOMPurify parses into, which would fill the console with false alarms.
 */
const HANDLER_ATTR = /\s+on[a-z]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)/gi;
const markdown = new Marked({
  gfm: true,
  async: false,
  walkTokens(token) {
    if (token.type === 'html') token.text = token.text.replace(HANDLER_ATTR, '');
  },
});

/** Markdown → sanitised HTML (no script, no event handlers, no javascript: links). */
export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(markdown.parse(text) as string, { USE_PROFILES: { html: true } });
}

export default function MarkdownView({ url, size }: { url: string; size: number }) {
  const [html, setHtml] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    readRange(url, 0, Math.min(size, MARKDOWN_LIMIT)).then(
      (b) => live && setHtml(renderMarkdown(new TextDecoder('utf-8').decode(b))),
      (e) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [url, size]);
  if (error) return <div className="card"><InlineError error={error} /></div>;
  if (html === null) return <Spinner />;
  return <article className="card markdown-body" dangerouslySetInnerHTML={{ __html: html }} />;
}
