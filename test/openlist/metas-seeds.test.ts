/**
 * Metas on the seed routes (issue #18): a user without bit 0 can neither generate a seed of a hidden file, nor
 * list hidden children in a folder seed, nor read a stored seed or data folder that is hidden, nor have a hidden
 * file rapid-uploaded, nor write a seed output or a saved file onto a hidden name (queued tasks included); a
 * user without bit 1 cannot hash files a folder password guards (seed routes take no folder password). Admins
 * and users with the bits may. Every refusal writes nothing. Both databases.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { SEED_GENERATE_TASK } from '../../src/modules/seeds/generation/generate.js';
import { OFFLINE_DOWNLOAD_TASK } from '../../src/modules/seeds/operations/offline.js';
import { TaskState } from '../../src/modules/tasks/task.model.js';
import { forEachDialect, type Harness } from '../support/harness.js';
import { bytes, putIndexed } from '../seeds-generate/helpers.js';

const bits = (...n: number[]) => n.reduce((a, b) => a | (1 << b), 0);
const T = { timeout: 120_000 };
const OSS = { formats: ['oss'] };

function files(h: Harness, dir: string, names: string[]): void {
  for (const n of names) {
    const p = join(h.dataDir, 'files', dir, n);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, `content of ${n}`);
  }
}

forEachDialect('metas on seed routes', (h) => {
  let admin: string;
  /** No bit 0 (see hidden); bit 1 (no folder passwords), write, offline download, copy. */
  let hider: string;
  let hiderId: number;
  /** Bit 0 but not bit 1 (folder passwords apply). */
  let locked: string;
  /** Both bits. */
  let seer: string;
  const disk = (p: string) => join(h().dataDir, 'files', p);
  const has = (p: string) => existsSync(disk(p));
  const meta = async (body: Record<string, unknown>) => {
    const r = await h().post('/api/admin/meta/create', body, { token: admin });
    assert.equal(r.status, 200, r.body.message);
  };
  const seed = (op: string, body: Record<string, unknown>, token: string) => h().post(`/api/fs/seed/${op}`, body, { token });
  const expect403 = async (r: Promise<{ status: number; body: { message: string } }>, what: string, re = /permission denied/) => {
    const got = await r;
    assert.equal(got.status, 403, `${what}: ${got.status} ${got.body.message}`);
    assert.match(got.body.message, re, what);
  };
  const ok = async (r: Promise<{ status: number; body: { message: string; data: any } }>, what: string) => {
    const got = await r;
    assert.equal(got.status, 200, `${what}: ${got.status} ${got.body.message}`);
    return got.body.data;
  };

  before(async () => {
    admin = await h().adminToken();
    hiderId = await h().createUser('hedda', 'hedda-pass-1', { permission: bits(1, 2, 3, 6) });
    await h().createUser('lars', 'lars-pass-1', { permission: bits(0, 3) });
    await h().createUser('sven', 'sven-pass-1', { permission: bits(0, 1, 3) });
    hider = await h().login('hedda', 'hedda-pass-1');
    locked = await h().login('lars', 'lars-pass-1');
    seer = await h().login('sven', 'sven-pass-1');
    files(h(), 'sh', ['keep.bin', 'secret.bin', 'secretdir/in.bin', 'sub/ok.bin', 'sub/secret2.bin']);
    mkdirSync(disk('sh-out'), { recursive: true });
    await meta({ path: '/sh', hide: '^secret', h_sub: true });
  });

  test('generation and capabilities: a hidden source is refused, a folder seed leaves hidden names out', T, async () => {
    for (const p of ['/sh/secret.bin', '/sh/secretdir/in.bin', '/sh/secretdir']) {
      await expect403(seed('generate', { paths: [p], ...OSS }, hider), `generate ${p}`);
      await expect403(seed('capabilities', { paths: [p] }, hider), `capabilities ${p}`);
    }
    // the same refusal whether or not the hidden name exists
    await expect403(seed('generate', { paths: ['/sh/secret-none.bin'], ...OSS }, hider), 'generate a missing hidden name');
    assert.deepEqual(readdirSync(disk('sh')).filter((n) => n.endsWith('.oss')), [], 'no sidecar written');
    assert.deepEqual(readdirSync(disk('sh/secretdir')).sort(), ['in.bin'], 'no sidecar written');

    const caps = await ok(seed('capabilities', { paths: ['/sh'] }, hider), 'capabilities of the folder');
    assert.deepEqual(caps.files.map((f: { path: string }) => f.path).sort(), ['/sh/keep.bin', '/sh/sub/ok.bin']);
    const gen = await ok(seed('generate', { paths: ['/sh'], ...OSS, output_path: '/sh-out' }, hider), 'generate the folder');
    assert.deepEqual(gen.seed.files.map((f: { path: string }) => f.path).sort(), ['keep.bin', 'sub/ok.bin']);

    // a user who sees hidden names gets all of them
    const all = await ok(seed('generate', { paths: ['/sh'], ...OSS, output_path: '/sh-out', name: 'all' }, seer), 'generate the folder (bit 0)');
    assert.deepEqual(all.seed.files.map((f: { path: string }) => f.path).sort(), ['keep.bin', 'secret.bin', 'secretdir/in.bin', 'sub/ok.bin', 'sub/secret2.bin']);
    await ok(seed('generate', { paths: ['/sh/secret.bin'], ...OSS, output_path: '/sh-out' }, admin), 'admin: generate a hidden file');
  });

  test('generation outputs: never onto a hidden folder or name; a queued generation re-checks at its claim', T, async () => {
    await expect403(seed('generate', { paths: ['/sh/keep.bin'], ...OSS, output_path: '/sh/secretdir' }, hider), 'output into a hidden folder');
    await expect403(seed('generate', { paths: ['/sh/keep.bin'], ...OSS, output_path: '/sh/secret-new' }, hider), 'output into a new hidden folder');
    await expect403(seed('generate', { paths: ['/sh/keep.bin'], ...OSS, name: 'secret-seed' }, hider), 'a hidden sidecar name');
    assert.deepEqual(readdirSync(disk('sh/secretdir')), ['in.bin'], 'nothing written');
    assert.ok(!has('sh/secret-new') && !has('sh/secret-seed.oss'), 'nothing written');

    const before = readdirSync(disk('sh-out')).sort();
    for (const body of [
      { paths: ['/sh/secret.bin'], ...OSS, output_path: '/sh-out', name: 'queued-hidden-source' },
      { paths: ['/sh/keep.bin'], ...OSS, output_path: '/sh/secretdir' },
    ]) {
      const row = await h().ctx.tasks.create(SEED_GENERATE_TASK, { name: 'seed', creatorId: hiderId, payload: { user_id: hiderId, body, origin: 'http://127.0.0.1' } });
      const end = await h().ctx.tasks.settle(row.id, 30_000);
      assert.equal(end.state, TaskState.FAILED, `${JSON.stringify(body)}: ${end.error}`);
      assert.match(end.error ?? '', /permission denied/);
    }
    assert.deepEqual(readdirSync(disk('sh-out')).sort(), before);
    assert.deepEqual(readdirSync(disk('sh/secretdir')), ['in.bin']);
  });

  test('stored seeds and data folders: a hidden one cannot be previewed, converted, diagnosed or recalculated from', T, async () => {
    const made = await ok(seed('generate', { paths: ['/sh/secretdir/in.bin'], ...OSS }, admin), 'admin: a seed inside the hidden folder');
    const stored = made.paths[0] as string;
    assert.equal(stored, '/sh/secretdir/in.oss');
    assert.ok(has(stored.slice(1)));
    const seedData = made.artifacts[0].seed_data as string;
    for (const op of ['parse', 'diagnose', 'convert']) {
      await expect403(seed(op, { path: stored, ...(op === 'convert' ? { target_format: 'torrent' } : {}) }, hider), `${op} of a stored seed`);
    }
    await expect403(seed('parse', { seed_data: seedData, data_path: '/sh/secretdir' }, hider), 'parse with a hidden data_path');
    await expect403(seed('update', { seed_data: seedData, recalculate: { path: '/sh/secretdir' } }, hider), 'recalculate from a hidden folder');
    // the seed's file in a visible folder, but the file itself hidden: not found there (nothing told about it)
    const ofHidden = await ok(seed('generate', { paths: ['/sh/secret.bin'], ...OSS, output_path: '/sh-out', name: 'of-hidden' }, admin), 'admin: a seed of a hidden file');
    const hiddenData = ofHidden.artifacts[0].seed_data as string;
    const visibleDir = await ok(seed('parse', { seed_data: hiddenData, data_path: '/sh' }, hider), 'parse with a visible data_path');
    assert.equal(visibleDir.capabilities.recalculate.available, false, JSON.stringify(visibleDir.capabilities.recalculate));
    const recalc = await seed('update', { seed_data: hiddenData, recalculate: { path: '/sh' } }, hider);
    assert.ok(recalc.status === 400 || recalc.status === 403, `recalculate a hidden file: ${recalc.status} ${recalc.body.message}`);
    assert.equal((await ok(seed('parse', { seed_data: hiddenData, data_path: '/sh' }, seer), 'parse (bit 0)')).capabilities.recalculate.available, true);

    const parsed = await ok(seed('parse', { path: stored }, seer), 'parse (bit 0)');
    assert.equal(parsed.capabilities.recalculate.available, true);
    await ok(seed('parse', { seed_data: seedData, data_path: '/sh/secretdir' }, admin), 'admin: hidden data_path');
  });

  test('saving seeds: convert outputs and save destinations refuse hidden names; a hidden file is no rapid-upload source', T, async () => {
    const content = bytes(30_000, 7);
    await putIndexed(h(), '/rs/secret-data.bin', content);
    await meta({ path: '/rs', hide: '^secret' });
    mkdirSync(disk('rs-dst'), { recursive: true });
    const made = await ok(seed('generate', { paths: ['/rs/secret-data.bin'], formats: ['oss'], output_path: '/sh-out' }, admin), 'admin: seed of a hidden file');
    const secretdir = readdirSync(disk('sh/secretdir')).sort();
    const seedData = made.artifacts[0].seed_data as string;

    await expect403(seed('convert', { seed_data: seedData, target_format: 'oss', output_path: '/sh/secretdir' }, hider), 'convert into a hidden folder');
    await expect403(seed('convert', { seed_data: seedData, target_format: 'oss', output_path: '/sh/secret-out.oss' }, hider), 'convert onto a hidden name');
    await expect403(seed('update', { seed_data: seedData, comment: 'x', output_path: '/sh/secretdir' }, hider), 'update into a hidden folder');
    assert.deepEqual(readdirSync(disk('sh/secretdir')).sort(), secretdir);
    assert.ok(!has('sh/secret-out.oss'));

    for (const mode of ['rapid_upload', 'quick_save', 'offline_download']) {
      await expect403(seed(mode, { seed_data: seedData, path: '/sh/secretdir' }, hider), `${mode} into a hidden folder`);
      // /rs hides ^secret: the file lands on a hidden name
      await expect403(seed(mode, { seed_data: seedData, path: '/rs' }, hider), `${mode} onto a hidden name`);
    }
    await expect403(seed('capabilities', { seed_data: seedData, path: '/sh/secretdir' }, hider), 'destination plan of a hidden folder');
    assert.deepEqual(readdirSync(disk('sh/secretdir')).sort(), secretdir);

    // the only stored copy is hidden from the user: not found, not copied, not named
    const plan = await ok(seed('capabilities', { seed_data: seedData, path: '/rs-dst' }, hider), 'destination plan');
    assert.equal(plan.files[0].found_at ?? null, null, JSON.stringify(plan.files[0]));
    const rapid = await ok(seed('rapid_upload', { seed_data: seedData, path: '/rs-dst' }, hider), 'rapid upload from a hidden source');
    assert.match(rapid.results[0].error ?? '', /no stored file you can read/, JSON.stringify(rapid.results));
    assert.ok(!has('rs-dst/secret-data.bin'));
    const seen = await ok(seed('rapid_upload', { seed_data: seedData, path: '/rs-dst' }, seer), 'rapid upload (bit 0)');
    assert.equal(seen.results[0].method, 'rapid_upload', JSON.stringify(seen.results));
    assert.equal(seen.results[0].error, undefined, JSON.stringify(seen.results));
    assert.ok(has('rs-dst/secret-data.bin'));

    // a queued download whose target became hidden fails at its claim, before any fetch
    const file = { path: 'secret-late.bin', size: 5, hashes: { md5: '5d41402abc4b2a76b9719d911017c592' }, sources: [{ type: 'openlist-direct', url: 'http://127.0.0.1:9/x' }] };
    const row = await h().ctx.tasks.create(OFFLINE_DOWNLOAD_TASK, { name: 'dl', creatorId: hiderId, payload: { user_id: hiderId, origin: 'http://127.0.0.1', file, piece_size: 1 << 20, target: '/rs/secret-late.bin', overwrite: false } });
    const end = await h().ctx.tasks.settle(row.id, 30_000);
    assert.equal(end.state, TaskState.FAILED, end.error ?? '');
    assert.match(end.error ?? '', /permission denied/);
  });

  test('folder passwords: a user without bit 1 cannot hash or read what a password guards; with it they can', T, async () => {
    files(h(), 'pw', ['locked.bin', 'deeper/x.bin']);
    files(h(), 'pw-walk', ['a.bin', 'lock/b.bin']);
    await meta({ path: '/pw', password: 'pw-secret', p_sub: true });
    await meta({ path: '/pw-walk/lock', password: 'pw-secret', p_sub: true });
    const guarded = /password-protected/;
    for (const p of ['/pw/locked.bin', '/pw/deeper/x.bin', '/pw']) {
      await expect403(seed('generate', { paths: [p], ...OSS, output_path: '/sh-out' }, locked), `generate ${p}`, guarded);
      await expect403(seed('capabilities', { paths: [p] }, locked), `capabilities ${p}`, guarded);
    }
    // a walk meeting a guarded folder refuses, as fs/list refuses to open it
    await expect403(seed('generate', { paths: ['/pw-walk'], ...OSS, output_path: '/sh-out' }, locked), 'walk into a guarded folder', guarded);
    assert.deepEqual(readdirSync(disk('sh-out')).filter((n) => /^(locked|pw|pw-walk|x)\.oss$/.test(n)), [], 'nothing written');

    const made = await ok(seed('generate', { paths: ['/pw/locked.bin'], ...OSS }, admin), 'admin: generate in a guarded folder');
    const stored = made.paths[0] as string;
    assert.ok(stored.startsWith('/pw/') && has(stored.slice(1)), stored);
    await expect403(seed('parse', { path: stored }, locked), 'parse a stored seed in a guarded folder', guarded);
    await expect403(seed('update', { seed_data: made.artifacts[0].seed_data, recalculate: { path: '/pw' } }, locked), 'recalculate from a guarded folder', guarded);

    await ok(seed('generate', { paths: ['/pw-walk'], ...OSS, output_path: '/sh-out' }, seer), 'bit 1: the walk');
    await ok(seed('parse', { path: stored }, seer), 'bit 1: parse');
    await ok(seed('generate', { paths: ['/pw/locked.bin'], ...OSS, output_path: '/sh-out' }, hider), 'bit 1 without bit 0: a guarded, visible file');
  });
});
