/**
 * Regular expressions from users (metas' hidden names, regex rename), run on RE2 (re2js): linear-time matching
 * with no backtracking, so no pattern, however written, can stall the server (no catastrophic backtracking).
 * The syntax is Go's (RE2), which OpenList uses for regex rename; look-arounds and back-references do not exist
 * in it and are refused when compiled.
 */
import { RE2JS } from 're2js';
import { badRequest } from './errors.js';

/** Longest pattern accepted (RE2 is linear in the input, but its compiled program grows with the pattern). */
export const MAX_PATTERN_LENGTH = 1024;

export interface SafeRegex {
  readonly source: string;
  /** True when the pattern matches anywhere in `s`. */
  test(s: string): boolean;
  /**
   * Every non-overlapping match replaced by `template`, with Go's expansion (`$1`, `${1}`, `$name`, `${name}`,
   * `$$`); like Go, an empty match right after a previous match is ignored.
   */
  replaceAll(s: string, template: string): string;
}

/** Compiles `pattern`; a syntax error or an over-long pattern is a 400 naming `field`. */
export function compileSafeRegex(pattern: string, field: string): SafeRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) throw badRequest(`${field}: the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    throw badRequest(`${field}: invalid regular expression: ${(e as Error).message}`);
  }
  const names = re.namedGroups() as Record<string, number>;
  const groups = re.groupCount();
  return {
    source: pattern,
    test: (s) => re.matcher(s).find(),
    replaceAll(s, template) {
      const m = re.matcher(s);
      let out = '';
      let last = 0;
      let prevEnd = -1;
      while (m.find()) {
        const start = m.start();
        const end = m.end();
        if (start === end && start === prevEnd) continue;
        const group = (ref: string): string => {
          const i = /^\d+$/.test(ref) ? Number(ref) : names[ref];
          if (i === undefined || i > groups) return '';
          return m.group(i) ?? '';
        };
        out += s.slice(last, start) + expand(template, group);
        last = end;
        prevEnd = end;
      }
      return out + s.slice(last);
    },
  };
}

/** Go's `Regexp.Expand` template language. */
function expand(template: string, group: (ref: string) => string): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== '$' || i === template.length - 1) {
      out += c;
      continue;
    }
    const next = template[i + 1]!;
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    const braced = next === '{' ? /^\{([A-Za-z0-9_]+)\}/.exec(template.slice(i + 1)) : null;
    const bare = braced ? null : /^[A-Za-z0-9_]+/.exec(template.slice(i + 1));
    if (braced) {
      out += group(braced[1]!);
      i += braced[0].length;
    } else if (bare) {
      out += group(bare[0]);
      i += bare[0].length;
    } else out += c;
  }
  return out;
}
