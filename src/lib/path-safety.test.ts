import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { AppError } from './errors.js';
import { RELATIVE_PATH_MESSAGE, UnsafePathError, assertSafeName, cleanPath, joinBasePath, stripBasePath } from './path-safety.js';
import { isWithin } from './paths.js';

const BASE = '/home/u';

/** Asserts that `fn` throws the path-safety error: UnsafePathError, 403, the contract message. */
function assertRefused(fn: () => unknown, label: string): void {
  assert.throws(
    fn,
    (e: unknown) => {
      assert.ok(e instanceof UnsafePathError, `${label}: expected UnsafePathError, got ${String(e)}`);
      assert.ok(e instanceof AppError, `${label}: UnsafePathError must be an AppError`);
      assert.equal(e.code, 403, label);
      assert.equal(e.message, 'using relative path is not allowed', label);
      assert.equal(e.message, RELATIVE_PATH_MESSAGE, label);
      return true;
    },
    `${label}: expected a refusal`,
  );
}

/** The invariant for any input: refused, or a path that stays inside BASE. */
function assertConfined(v: string): void {
  let out: string;
  try {
    out = joinBasePath(BASE, v);
  } catch (e) {
    assert.ok(e instanceof UnsafePathError, `${JSON.stringify(v)}: threw ${String(e)} instead of UnsafePathError`);
    assert.equal(e.code, 403);
    assert.equal(e.message, RELATIVE_PATH_MESSAGE);
    return;
  }
  assert.ok(out === BASE || out.startsWith(BASE + '/'), `${JSON.stringify(v)} escaped to ${JSON.stringify(out)}`);
  const segs = out.split('/');
  assert.ok(!segs.includes('..'), `${JSON.stringify(v)}: result ${out} has a .. segment`);
  assert.ok(!segs.includes('.'), `${JSON.stringify(v)}: result ${out} has a . segment`);
  assert.ok(!out.includes('\0'), `${JSON.stringify(v)}: result has NUL`);
  assert.ok(!out.includes('\\'), `${JSON.stringify(v)}: result has a backslash`);
  assert.ok(!out.includes('//'), `${JSON.stringify(v)}: result has a double slash`);
  assert.ok(out === '/' || !out.endsWith('/'), `${JSON.stringify(v)}: result has a trailing slash`);
}

// ---------------------------------------------------------------------------
// Systematic traversal variants. Each "dot" spelling decodes to `.` within the
// module's bounded decoding (≤ 4 rounds); each separator spelling to `/` or `\`.
// ---------------------------------------------------------------------------
const DOTS = ['.', '%2e', '%2E', '%252e', '%252E', '%25252e', '%2525252e'];
const SEPS = ['/', '\\', '%2f', '%2F', '%5c', '%5C', '%252f', '%255c'];

const dotDots: string[] = [];
for (const a of DOTS) for (const b of DOTS) dotDots.push(a + b);

const traversal = new Set<string>();
// every spelling of `..` alone, with a trailing and a leading separator
for (const dd of dotDots) {
  traversal.add(dd);
  traversal.add(`/${dd}`);
  traversal.add(`${dd}/`);
  traversal.add(`/${dd}/etc/passwd`);
  traversal.add(`a/b/${dd}`);
}
// `..` with every spelling of the separator around it
for (const sep of SEPS) {
  for (const dd of ['..', '%2e%2e', '%2E%2e', '%252e%252e']) {
    traversal.add(`${dd}${sep}`);
    traversal.add(`${sep}${dd}`);
    traversal.add(`${dd}${sep}etc${sep}passwd`);
    traversal.add(`a${sep}${dd}${sep}${dd}${sep}etc`);
    traversal.add(`x${sep}${dd}`);
  }
}
// hand-written classics
for (const v of [
  '..',
  '../..',
  '../../..',
  '/..',
  '/../',
  '/a/../../etc',
  '/a/../b',
  'a/..',
  'a/b/../../..',
  '/a/./../..',
  '/./../',
  './..',
  '././../etc',
  '/a/b/c/../../../../etc/shadow',
  '//..//..//etc',
  '..\\',
  '\\..\\',
  '\\..\\windows\\system32',
  'a\\..\\..\\x',
  '..\\..',
  '/a\\..',
  '..%2f',
  '..%2F',
  '..%5c',
  '..%5C',
  '%2e%2e',
  '%2E%2E',
  '%2E%2e/',
  '%2e%2e%2f',
  '%2e%2e%5c',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%2e.',
  '.%2e',
  '.%2E/',
  '%252e%252e',
  '%252e%252e%252f',
  '%25252e%25252e',
  '%25252e%25252e%25252f',
  '%25252e.',
  '%252e%2e',
  'a%2f..%2f..',
  '%2f..%2f',
  '/a/%2e%2e/%2e%2e/etc',
  '%%32%65%%32%65', // %32%65 → "2e", so "%%32%65" decodes in two rounds to "."
  '%zz/%2e%2e', // a stray % elsewhere must not disable decoding
  '%/..',
  '100%/../x',
]) traversal.add(v);

// NUL bytes, literal and encoded, anywhere
const nul = new Set<string>();
for (const enc of ['\0', '%00', '%2500', '%252500']) {
  nul.add(enc);
  nul.add(`a${enc}`);
  nul.add(`${enc}a`);
  nul.add(`/a/b${enc}.txt`);
  nul.add(`/a${enc}/b`);
  nul.add(`file.txt${enc}.jpg`);
}

describe('joinBasePath refuses traversal in every spelling', () => {
  test('the variant lists are large and systematic', () => {
    assert.ok(traversal.size >= 300, `only ${traversal.size} traversal variants`);
    assert.equal(nul.size, 24);
  });
  for (const v of traversal) {
    test(`refuses ${JSON.stringify(v)}`, () => {
      assertRefused(() => joinBasePath(BASE, v), JSON.stringify(v));
      assertRefused(() => joinBasePath('/', v), `base / ${JSON.stringify(v)}`);
      assertRefused(() => cleanPath(v), `cleanPath ${JSON.stringify(v)}`);
    });
  }
  for (const v of nul) {
    test(`refuses NUL ${JSON.stringify(v)}`, () => {
      assertRefused(() => joinBasePath(BASE, v), JSON.stringify(v));
    });
  }
});

// ---------------------------------------------------------------------------
// Names that look like traversal but are not: they stay inside the base.
// ---------------------------------------------------------------------------
const names: Array<[string, string]> = [
  ['....//', '/home/u/....'],
  ['....', '/home/u/....'],
  ['...', '/home/u/...'],
  ['/...', '/home/u/...'],
  ['.../...', '/home/u/.../...'],
  ['a..b', '/home/u/a..b'],
  ['..a', '/home/u/..a'],
  ['a..', '/home/u/a..'],
  ['..a/b..', '/home/u/..a/b..'],
  ['.hidden', '/home/u/.hidden'],
  ['..hidden', '/home/u/..hidden'],
  ['.. ', '/home/u/.. '],
  [' ..', '/home/u/ ..'],
  ['. .', '/home/u/. .'],
  ['%2e%2e%2e', '/home/u/%2e%2e%2e'], // decodes to "...", a name
  ['%2ea', '/home/u/%2ea'],
  ['\u2025', '/home/u/\u2025'], // TWO DOT LEADER
  ['\u2025/\u2025', '/home/u/\u2025/\u2025'],
  ['\u2024\u2024', '/home/u/\u2024\u2024'], // ONE DOT LEADER ×2
  ['\uff0e\uff0e', '/home/u/\uff0e\uff0e'], // FULLWIDTH FULL STOP ×2
  ['/\uff0e\uff0e/etc', '/home/u/\uff0e\uff0e/etc'],
  ['\u3002\u3002', '/home/u/\u3002\u3002'], // IDEOGRAPHIC FULL STOP ×2
  ['\ufe52\ufe52', '/home/u/\ufe52\ufe52'], // SMALL FULL STOP ×2
  ['%e2%80%a5', '/home/u/%e2%80%a5'], // encoded TWO DOT LEADER: decodes to a name
  ['%ef%bc%8e%ef%bc%8e', '/home/u/%ef%bc%8e%ef%bc%8e'], // encoded fullwidth dots
  ['%c0%ae%c0%ae', '/home/u/%c0%ae%c0%ae'], // overlong UTF-8 is not a dot
  ['%u002e%u002e', '/home/u/%u002e%u002e'], // not a percent escape at all
  ['\u2215..\u2215', '/home/u/\u2215..\u2215'], // DIVISION SLASH is not a separator
  ['\uff0f..\uff0f', '/home/u/\uff0f..\uff0f'], // FULLWIDTH SOLIDUS is not a separator
  ['%', '/home/u/%'],
  ['100%', '/home/u/100%'],
];

describe('joinBasePath keeps look-alike names as names', () => {
  for (const [v, want] of names) {
    test(`${JSON.stringify(v)} → ${JSON.stringify(want)}`, () => {
      assert.equal(joinBasePath(BASE, v), want);
    });
  }
});

describe('cleaning', () => {
  const cases: Array<[string, string]> = [
    ['', '/'],
    ['/', '/'],
    ['.', '/'],
    ['./', '/'],
    ['/./.', '/'],
    ['//a///b/', '/a/b'],
    ['a/b', '/a/b'],
    ['a\\b', '/a/b'],
    ['\\a\\b\\', '/a/b'],
    ['\\\\server\\share', '/server/share'],
    ['/a/./b/./c', '/a/b/c'],
    ['./a/.', '/a'],
    ['a/\\/b', '/a/b'],
    ['/a b/c d', '/a b/c d'],
    ['/ünï/çødé', '/ünï/çødé'],
    ['a%2fb', '/a%2fb'], // an encoded slash inside a name is kept as given
    ['a%20b', '/a%20b'],
  ];
  for (const [input, want] of cases) {
    test(`cleanPath(${JSON.stringify(input)}) = ${JSON.stringify(want)}`, () => {
      assert.equal(cleanPath(input), want);
    });
  }

  test('joinBasePath cleans both the base and the user path', () => {
    assert.equal(joinBasePath('/home/u', ''), '/home/u');
    assert.equal(joinBasePath('/home/u', '/'), '/home/u');
    assert.equal(joinBasePath('/home/u', '.'), '/home/u');
    assert.equal(joinBasePath('/home/u', '//a///b/'), '/home/u/a/b');
    assert.equal(joinBasePath('/home/u', 'a\\b\\c.txt'), '/home/u/a/b/c.txt');
    assert.equal(joinBasePath('/home/u', './a/./b'), '/home/u/a/b');
    assert.equal(joinBasePath('/home/u/', 'x'), '/home/u/x');
    assert.equal(joinBasePath('\\home\\u\\\\', 'x'), '/home/u/x');
    assert.equal(joinBasePath('/', 'a/b'), '/a/b');
    assert.equal(joinBasePath('/', ''), '/');
    assert.equal(joinBasePath('', 'a'), '/a');
  });
});

describe('the confinement invariant', () => {
  test('every listed variant is refused or stays inside the base', () => {
    const all = [...traversal, ...nul, ...names.map(([v]) => v)];
    assert.ok(all.length >= 350);
    for (const v of all) assertConfined(v);
  });

  test('leading and trailing decorations around `..` never escape', () => {
    const around = ['', '/', '//', '\\', './', '/./', ' ', '%20', '%2f', '%5c'];
    let refused = 0;
    for (const pre of around) {
      for (const post of around) {
        for (const dd of ['..', '%2e%2e', '%252e%252e']) {
          const v = `${pre}${dd}${post}`;
          assertConfined(v);
          try {
            joinBasePath(BASE, v);
          } catch {
            refused++;
          }
        }
      }
    }
    // names, not traversal: the space-padded forms (" ..", "%20..", ".. " …) and those where
    // a following "./" makes "..." — so 8 prefixes × 7 suffixes × 3 spellings are refused
    assert.equal(refused, 8 * 7 * 3);
  });

  test('random strings over a hostile alphabet (property)', () => {
    const alphabet = fc.constantFrom('.', '/', '\\', '%', '2', 'e', 'E', 'f', 'F', '5', 'c', '0', 'a', '\0', '\u2025', '\uff0e', ' ');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), (chars) => {
        assertConfined(chars.join(''));
      }),
      { numRuns: 3000 },
    );
  });

  test('random strings built from dot/separator tokens (property)', () => {
    const token = fc.constantFrom(...DOTS, ...SEPS, 'a', 'etc', '\0', '%00', '%');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), (parts) => {
        assertConfined(parts.join(''));
      }),
      { numRuns: 3000 },
    );
  });

  test('a base that merely shares a prefix is never reached', () => {
    for (const v of ['../u2', '../u2/x', '%2e%2e/u2', '..\\u2']) assertRefused(() => joinBasePath(BASE, v), v);
    const out = joinBasePath(BASE, 'u2');
    assert.equal(out, '/home/u/u2');
  });
});

describe('assertSafeName', () => {
  for (const good of ['a', 'a..b', '...', '....', '.hidden', '..hidden', 'file.tar.gz', 'ünï çødé', '\u2025', '\uff0e\uff0e', '%2e%2e%2e', '100%']) {
    test(`accepts ${JSON.stringify(good)}`, () => {
      assert.equal(assertSafeName(good), good);
    });
  }
  for (const bad of [
    '',
    '.',
    '..',
    'a/b',
    '/a',
    'a/',
    'a\\b',
    '\\',
    '/',
    'a\0b',
    '\0',
    '%00',
    'a%00b',
    '%2e%2e',
    '%2E%2E',
    '%252e%252e',
    '.%2e',
    '%2e%2e%2f', // decodes to "../"
    '..%2f',
    '..%5c',
    '%2e%2e%2fetc', // decodes to "../etc"
    'x%2f..', // decodes to "x/.."
  ]) {
    test(`refuses ${JSON.stringify(bad)}`, () => {
      assertRefused(() => assertSafeName(bad), JSON.stringify(bad));
    });
  }
  test('every name assertSafeName accepts is also accepted by joinBasePath as one segment', () => {
    const candidates = ['a', 'a..b', '...', '%2e%2e%2e', 'a%2fb', '..a', '\u2025', '..%2f', '%2e%2e%2f', 'x%2f..', '%2e%2e%5c'];
    for (const n of candidates) {
      let ok = true;
      try {
        assertSafeName(n);
      } catch {
        ok = false;
      }
      if (ok) assert.equal(joinBasePath(BASE, `dir/${n}`), `${BASE}/dir/${n}`, n);
    }
  });
});

describe('stripBasePath and isWithin', () => {
  test('stripBasePath presents paths relative to the base', () => {
    assert.equal(stripBasePath('/home/u', '/home/u'), '/');
    assert.equal(stripBasePath('/home/u', '/home/u/a/b.txt'), '/a/b.txt');
    assert.equal(stripBasePath('/home/u/', '/home/u/a'), '/a');
    assert.equal(stripBasePath('/', '/x/y'), '/x/y');
    assert.equal(stripBasePath('/home/u', joinBasePath('/home/u', 'a//b\\c')), '/a/b/c');
  });

  test('stripBasePath refuses paths outside the base, including a shared prefix', () => {
    for (const p of ['/home/u2', '/home/u2/x', '/home', '/', '/etc/passwd', '/home/uu']) {
      assertRefused(() => stripBasePath('/home/u', p), p);
    }
    assertRefused(() => stripBasePath('/home/../etc', '/etc'), 'dirty base');
  });

  test('isWithin', () => {
    assert.equal(isWithin('/a', '/ab'), false);
    assert.equal(isWithin('/a', '/a'), true);
    assert.equal(isWithin('/a', '/a/b'), true);
    assert.equal(isWithin('/a', '/a/'), true);
    assert.equal(isWithin('/a/b', '/a'), false);
    assert.equal(isWithin('/a/b', '/a/bc/d'), false);
    assert.equal(isWithin('/', '/anything'), true);
    assert.equal(isWithin('/', '/'), true);
    assert.equal(isWithin('/home/u', '/home/u2'), false);
  });
});
