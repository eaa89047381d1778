// Property-based round trips of random valid seeds through all three containers.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeCas, encodeCas, fileCasSliceMd5 } from './cas.js';
import { conversionFeasibility } from './convert.js';
import { CAS_SLICE_SIZE, canonicalizeSeed, pieceCount, seedNameProblem, validateSeed } from './model.js';
import type { Seed, SeedFile } from './model.js';
import { decodeOss, encodeOss } from './oss.js';
import { decodeTorrent, encodeTorrent, torrentFileOrder } from './torrent.js';

const RUNS = { numRuns: 150 };
const MiB = 1024 * 1024;

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
/** Hex in random case: readers must accept both. */
const anyCaseHex = (bytes: number) => fc.tuple(hex(bytes), fc.boolean()).map(([h, up]) => (up ? h.toUpperCase() : h));
const segment = fc
  .array(fc.constantFrom('a', 'b', 'Z', '0', '-', '_', ' ', '.', 'é', '文', '😀', '%', '#'), { minLength: 1, maxLength: 6 })
  .map((c) => c.join(''))
  .filter((s) => s.trim() !== '.' && s.trim() !== '..' && s.trim() !== '');
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
const text = fc.string({ unit: 'grapheme', maxLength: 20 });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const PIECE_SIZES = [16384, 32768, 10 * MiB, 64 * MiB];

interface Shape {
  path: string;
  pieces: number;
  tail: number;
}

/** Files with sizes expressed in pieces; `tail` (0..1) shortens the last piece. */
const shapes = fc.uniqueArray(fc.record({ path, pieces: fc.nat(3), tail: fc.double({ min: 0, max: 0.999, noNaN: true }) }), {
  minLength: 1,
  maxLength: 5,
  selector: (s) => s.path,
});

function sizeOf(s: Shape, pieceSize: number, aligned: boolean): number {
  if (s.pieces === 0) return 0;
  return s.pieces * pieceSize - (aligned ? 0 : Math.floor(s.tail * (pieceSize - 1)));
}

const extras = fc.record({
  comment: maybe(text),
  modified: maybe(fc.constant('2026-01-02T03:04:05Z')),
  sources: maybe(fc.array(fc.record({ type: fc.constantFrom('openlist-direct', 'openlist-share'), url: fc.webUrl(), share_id: maybe(fc.string({ minLength: 1 })) }), { maxLength: 2 })),
  cas_create_time: maybe(fc.integer({ min: 0, max: 2e9 }).map(String)),
  cas_cloud: maybe(fc.constantFrom('189', '115', 'aliyundrive_open')),
  missing_channels: maybe(fc.array(fc.constantFrom('189CloudPC', 'Local', 'S3'), { maxLength: 2 })),
});

const seedBase = fc.record({
  name: segment.filter((s) => seedNameProblem(s) === null),
  comment: maybe(text),
  trackers: maybe(fc.array(fc.webUrl(), { maxLength: 3 })),
  channels: maybe(fc.array(fc.record({ driver: fc.constantFrom('Local', 'S3'), mount_path: maybe(fc.constantFrom('/', '/local', '/s3/a b')) }), { maxLength: 2 })),
});

/**
 * A random valid seed. `mode` shapes the data: `any` (random subsets of hashes),
 * `torrent` (SHA-1 pieces everywhere, all but the last file in torrent order piece-aligned),
 * `cas` (whole MD5 + MD5 pieces at 10 MiB).
 */
function seedArb(mode: 'any' | 'torrent' | 'cas'): fc.Arbitrary<Seed> {
  const pieceSize = mode === 'cas' ? fc.constant(CAS_SLICE_SIZE) : fc.constantFrom(...PIECE_SIZES);
  return fc.tuple(seedBase, pieceSize, shapes).chain(([base, ps, sh]) => {
    const last = torrentFileOrder(sh).filter((s) => s.pieces > 0).at(-1)?.path;
    const files = sh.map((s) => {
      const size = sizeOf(s, ps, mode === 'torrent' && s.path !== last);
      const n = pieceCount(size, ps);
      const list = (bytes: number) => fc.array(anyCaseHex(bytes), { minLength: n, maxLength: n });
      const want = (forced: boolean) => (forced ? fc.constant(true) : fc.boolean());
      return fc
        .record({
          md5: fc.tuple(want(mode === 'cas'), anyCaseHex(16)),
          sha1: fc.tuple(fc.boolean(), anyCaseHex(20)),
          sha256: fc.tuple(fc.boolean(), anyCaseHex(32)),
          gcid: fc.tuple(fc.boolean(), hex(20)),
          pmd5: fc.tuple(want(mode === 'cas'), list(16)),
          psha1: fc.tuple(want(mode === 'torrent'), list(20)),
          psha256: fc.tuple(fc.boolean(), list(32)),
          extra: extras,
        })
        .map((r): SeedFile => {
          const pick = <T>([on, v]: [boolean, T]) => (on ? v : undefined);
          return {
            path: s.path,
            size,
            hashes: {
              md5: pick(r.md5),
              sha1: pick(r.sha1),
              sha256: pick(r.sha256),
              gcid: pick(r.gcid),
              pieces: { md5: pick(r.pmd5), sha1: pick(r.psha1), sha256: pick(r.psha256) },
            },
            ...r.extra,
          };
        });
    });
    return fc.tuple(...files).map(
      (fs): Seed => ({
        format: 'openlist-sharing-seed',
        version: 1,
        ...base,
        created_at: '2026-01-01T00:00:00Z',
        created_by: 'Ferry 0.1.0',
        piece_size: ps,
        files: fs,
      }),
    );
  });
}

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

describe('round trips (fast-check)', () => {
  it('generated seeds are valid', () => {
    fc.assert(fc.property(seedArb('any'), (s) => validateSeed(s)), RUNS);
  });

  it('.oss: decode(encode(seed)) is the canonical seed', () => {
    fc.assert(
      fc.property(seedArb('any'), (s) => {
        assert.deepEqual(decodeOss(encodeOss(s)), canonicalizeSeed(s));
      }),
      RUNS,
    );
  });

  it('.torrent: the seed survives via x-openlist, and the plain part agrees with it', () => {
    fc.assert(
      fc.property(seedArb('torrent'), (s) => {
        assert.equal(conversionFeasibility(s, 'torrent').feasible, true);
        const bytes = encodeTorrent(s);
        const d = decodeTorrent(bytes);
        const want = canonicalizeSeed(s);
        assert.deepEqual(d.seed, { ...want, files: torrentFileOrder(want.files) });
        // Deterministic: re-encoding the decoded seed gives the same bytes.
        assert.deepEqual(encodeTorrent(d.seed), bytes);
        // Without extensions, paths (or the single file name), sizes and SHA-1 pieces remain.
        const plain = decodeTorrent(encodeTorrent(s, { openlistExtension: false, casExtension: false }), { now: new Date(0) });
        assert.equal(plain.info_hash, d.info_hash);
        const files = torrentFileOrder(want.files);
        assert.deepEqual(
          plain.seed.files.map((f) => [f.path, f.size, f.hashes.pieces?.sha1 ?? []]),
          files.map((f) => [files.length === 1 ? base(f.path) : f.path, f.size, f.hashes.pieces?.sha1 ?? []]),
        );
      }),
      RUNS,
    );
  });

  it('.cas: paths, sizes, MD5 data and CAS fields survive', () => {
    fc.assert(
      fc.property(seedArb('cas'), (s) => {
        assert.equal(conversionFeasibility(s, 'cas').feasible, true);
        const back = decodeCas(encodeCas(s, { now: new Date(1767225600_000) }));
        const want = canonicalizeSeed(s);
        const single = want.files.length === 1;
        assert.equal(back.name, single ? base(want.files[0]!.path) : want.name);
        assert.equal(back.piece_size, CAS_SLICE_SIZE);
        assert.deepEqual(
          back.files,
          want.files.map((f) =>
            canonicalizeSeed({
              ...want,
              files: [
                {
                  path: single ? base(f.path) : f.path,
                  size: f.size,
                  hashes: { md5: f.hashes.md5, pieces: { md5: f.hashes.pieces?.md5 } },
                  cas_slice_md5: fileCasSliceMd5(f, want.piece_size)!.toLowerCase(),
                  cas_create_time: f.cas_create_time ?? '1767225600',
                  cas_cloud: f.cas_cloud,
                },
              ],
            }).files[0],
          ),
        );
      }),
      RUNS,
    );
  });

  it('feasibility predicts exactly whether encoding succeeds', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(seedArb('any'), (s) => {
        for (const [target, encode] of [['torrent', () => encodeTorrent(s)], ['cas', () => encodeCas(s)]] as const) {
          const feasible = conversionFeasibility(s, target).feasible;
          let ok = true;
          try {
            encode();
          } catch {
            ok = false;
          }
          assert.equal(ok, feasible, `${target}: feasibility ${feasible} but encode ${ok ? 'succeeded' : 'failed'}`);
          seen.add(`${target}:${feasible}`);
        }
      }),
      RUNS,
    );
    // The generator must reach both outcomes for both targets.
    assert.deepEqual([...seen].sort(), ['cas:false', 'cas:true', 'torrent:false', 'torrent:true']);
  });
});
