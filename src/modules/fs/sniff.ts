/**
 * Content sniffing: what a file's first bytes (at most SNIFF_BYTES, one range read through the storage driver) say
 * it is, whatever its extension says. Binary formats are recognised by `file-type`; markup (HTML, SVG, XML — what a
 * browser would run script from) by its leading tag, as the WHATWG MIME-sniffing rules for HTML do. `fs/get` reports
 * the result (`type`, `content_type`), and `serveFile` shows a file inline only when the bytes, not just the name,
 * are of a passive type.
 */
import { fileTypeFromBuffer } from 'file-type';
import type { StorageDriver } from '../storages/drivers/index.js';

export const SNIFF_BYTES = 4096;

export interface Sniffed {
  /** The MIME type the bytes show, or null when they show none (plain text, or a format nothing recognises). */
  mime: string | null;
  /** HTML, SVG or XML: markup a browser could run script from. */
  markup: boolean;
}

// WHATWG MIME sniffing (§7.1, "HTML"): these tags, case-insensitive, after optional whitespace, followed by a space
// or `>`; plus SVG and XML, which run script too.
const HTML_START = /^(?:<!doctype html|<html|<head|<script|<iframe|<h1|<div|<font|<table|<a|<style|<title|<b|<body|<br|<p|<!--)[\s>]/i;
const SVG_START = /^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*|<!doctype[^>]*>\s*)*<svg[\s>]/i;

/** What `head` (a file's first bytes) is. */
export async function sniffBytes(head: Uint8Array): Promise<Sniffed> {
  const text = Buffer.from(head.subarray(0, 1024)).toString('latin1').replace(/^\xef\xbb\xbf/, '').replace(/^[\t\n\f\r ]+/, '');
  if (SVG_START.test(text)) return { mime: 'image/svg+xml', markup: true };
  if (HTML_START.test(text)) return { mime: 'text/html', markup: true };
  if (text.startsWith('<?xml')) return { mime: 'application/xml', markup: true };
  const found = await fileTypeFromBuffer(head);
  if (!found) return { mime: null, markup: false };
  return { mime: found.mime, markup: found.mime === 'application/xml' || found.mime.endsWith('+xml') || found.mime === 'text/html' };
}

/** What the first bytes of a file show; null when it cannot be read (the caller goes by the name). */
export async function sniffFile(driver: StorageDriver, inner: string, size: number): Promise<Sniffed | null> {
  if (size === 0) return { mime: null, markup: false };
  try {
    const stream = await driver.read(inner, { start: 0, end: Math.min(size, SNIFF_BYTES) - 1 });
    const chunks: Buffer[] = [];
    let got = 0;
    for await (const c of stream as AsyncIterable<Buffer>) {
      chunks.push(c);
      got += c.length;
      if (got >= SNIFF_BYTES) break;
    }
    stream.destroy();
    return await sniffBytes(Buffer.concat(chunks).subarray(0, SNIFF_BYTES));
  } catch {
    return null;
  }
}
