/**
 * WebDAV request and reply XML. Requests are parsed with a real XML parser (fast-xml-parser): a document
 * with a DOCTYPE (and so any entity declaration: billion laughs, external entities) is refused before
 * parsing, entities are never expanded, and a malformed document is a 400. Namespaces are resolved here
 * (the parser keeps prefixes): every element comes out as {ns, name} with its children.
 * Replies are built as strings (a 10,000-entry multistatus is one join).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { badRequest } from '../../lib/errors.js';

export const DAV_NS = 'DAV:';
export const OC_NS = 'http://owncloud.org/ns';

export interface XmlElement {
  ns: string;
  name: string;
  /** Attributes by qualified name as written (values still escaped). */
  attrs: Record<string, string>;
  children: XmlNode[];
}
/** Text nodes keep their escaped form (entities are never expanded). */
export type XmlNode = XmlElement | { text: string };

export const isElement = (n: XmlNode): n is XmlElement => 'name' in n;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  htmlEntities: false,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
});

type Raw = Record<string, unknown> & { ':@'?: Record<string, string> };

function resolve(raw: Raw[], scope: Map<string, string>): XmlNode[] {
  const out: XmlNode[] = [];
  for (const item of raw) {
    const key = Object.keys(item).find((k) => k !== ':@');
    if (key === undefined) continue;
    if (key === '#text') {
      out.push({ text: String(item[key]) });
      continue;
    }
    if (key.startsWith('?') || key.startsWith('!')) continue;
    const attrs = item[':@'] ?? {};
    let inner = scope;
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'xmlns' || k.startsWith('xmlns:')) {
        // XML Namespaces 1.0: a prefix cannot be bound to the empty name (only the default namespace can)
        if (k !== 'xmlns' && String(v) === '') throw badRequest(`XML: namespace prefix "${k.slice(6)}" bound to an empty name`);
        if (inner === scope) inner = new Map(scope);
        inner.set(k === 'xmlns' ? '' : k.slice(6), String(v));
      }
    }
    const colon = key.indexOf(':');
    const prefix = colon >= 0 ? key.slice(0, colon) : '';
    const name = colon >= 0 ? key.slice(colon + 1) : key;
    const ns = inner.get(prefix);
    if (ns === undefined && prefix !== '') throw badRequest(`XML: undeclared namespace prefix "${prefix}"`);
    out.push({ ns: ns ?? '', name, attrs: { ...attrs }, children: resolve((item[key] as Raw[]) ?? [], inner) });
  }
  return out;
}

/** Parses a request body; null for an empty one. Throws 400 on DOCTYPE, entities or malformed XML. */
export function parseXml(text: string): XmlElement | null {
  if (text.trim() === '') return null;
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw badRequest('XML: DOCTYPE and entity declarations are not accepted');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw badRequest(`XML: malformed request body (${valid.err.msg}, line ${valid.err.line})`);
  let raw: Raw[];
  try {
    raw = parser.parse(text) as Raw[];
  } catch (e) {
    throw badRequest(`XML: malformed request body (${(e as Error).message})`);
  }
  const roots = resolve(raw, new Map([['xml', 'http://www.w3.org/XML/1998/namespace']])).filter(isElement);
  if (roots.length !== 1) throw badRequest('XML: the body must have exactly one root element');
  return roots[0]!;
}

export function childElements(e: XmlElement): XmlElement[] {
  return e.children.filter(isElement);
}

export function child(e: XmlElement, ns: string, name: string): XmlElement | undefined {
  return childElements(e).find((c) => c.ns === ns && c.name === name);
}

/** The text content of an element (children's text joined, entities decoded). */
export function textOf(e: XmlElement): string {
  let s = '';
  for (const c of e.children) s += isElement(c) ? textOf(c) : unescapeXml(c.text);
  return s;
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, g: string) => {
    if (g[0] === '#') return String.fromCodePoint(g[1] === 'x' ? parseInt(g.slice(2), 16) : parseInt(g.slice(1), 10));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[g]!;
  });
}

/**
 * The children of `e` serialised again, every element carrying its own namespace declaration, so the
 * fragment stands alone (a dead property's value, stored and replayed as written).
 */
export function innerXml(e: XmlElement): string {
  let s = '';
  for (const c of e.children) {
    if (!isElement(c)) {
      s += c.text;
      continue;
    }
    const attrs = Object.entries(c.attrs)
      .filter(([k]) => k !== 'xmlns' && !k.startsWith('xmlns:') && !k.includes(':'))
      .map(([k, v]) => ` ${k}="${v}"`)
      .join('');
    const decl = c.ns ? ` xmlns="${escapeXml(c.ns)}"` : ' xmlns=""';
    s += `<${c.name}${decl}${attrs}>${innerXml(c)}</${c.name}>`;
  }
  return s;
}

/** One property in a reply: `<name xmlns="ns">value</name>` (value already XML). */
export function propXml(ns: string, name: string, valueXml: string | null): string {
  if (ns === DAV_NS) return valueXml === null || valueXml === '' ? `<D:${name}/>` : `<D:${name}>${valueXml}</D:${name}>`;
  if (ns === OC_NS) return valueXml === null || valueXml === '' ? `<oc:${name}/>` : `<oc:${name}>${valueXml}</oc:${name}>`;
  const decl = ns ? ` xmlns:X="${escapeXml(ns)}"` : '';
  const tag = ns ? `X:${name}` : name;
  return valueXml === null || valueXml === '' ? `<${tag}${decl}/>` : `<${tag}${decl}>${valueXml}</${tag}>`;
}

export const MULTISTATUS_OPEN = `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:" xmlns:oc="${OC_NS}">`;
export const MULTISTATUS_CLOSE = '</D:multistatus>\n';

const REASONS: Record<number, string> = {
  200: 'OK',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  423: 'Locked',
  424: 'Failed Dependency',
  507: 'Insufficient Storage',
};

export function statusLine(code: number): string {
  return `HTTP/1.1 ${code} ${REASONS[code] ?? 'Error'}`;
}

/** A `<D:response>` with one propstat per status. */
export function responseXml(href: string, propstats: ReadonlyArray<readonly [number, string[]]>): string {
  let s = `<D:response><D:href>${escapeXml(href)}</D:href>`;
  for (const [code, props] of propstats) {
    if (props.length === 0) continue;
    s += `<D:propstat><D:prop>${props.join('')}</D:prop><D:status>${statusLine(code)}</D:status></D:propstat>`;
  }
  return s + '</D:response>';
}

/** A `<D:response>` carrying only a status (COPY/MOVE/DELETE members that failed). */
export function statusResponseXml(href: string, code: number): string {
  return `<D:response><D:href>${escapeXml(href)}</D:href><D:status>${statusLine(code)}</D:status></D:response>`;
}

/** A precondition/postcondition error body (RFC 4918 §16). */
export function errorXml(condition: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="DAV:"><D:${condition}/></D:error>\n`;
}
