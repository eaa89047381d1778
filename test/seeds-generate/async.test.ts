/**
 * Rules 1 and 2: at or below `seed_async_threshold` generation is synchronous; above it a
 * `seed_generate` task is queued (output_path required), visible in `undone` with progress,
 * then in `done`, its sidecars written when it succeeds. Cancel stops hashing promptly and
 * leaves no artifact and no share; retry; a restart mid-task resumes it to success.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { SharesRepo } from '../../src/modules/shares/shares.repo.js';
import { decodeOss } from '../../src/modules/seeds/formats/index.js';
import { executeGeneration, prepareGeneration } from '../../src/modules/seeds/generation/generate.js';
import { KiB, MiB, bytes, coreutils, filesDir, generate, generated, probeReads, putRaw, setSettings, until, type ReadProbe } from './helpers.js';

const SIZE = 3 * MiB;
const THRESHOLD = 1 * MiB;

forEachDialect('seed generation: background tasks', (h) => {
  let token: string;
  let probe: ReadProbe | null = null;
  const slow = () => {
    probe?.restore();
    // 3 MiB in 32 KiB steps, 15 ms apart: about 1.5 s of reading.
    probe = probeReads(h(), '/', { chunk: 32 * KiB, delayMs: 15 });
    return probe;
  };
  const task = (tid: string) => h().post(`/api/task/seed_generate/info?tid=${tid}`, undefined, { token }).then((r) => r.body.data);
  const seedShares = async () => (await new SharesRepo(h().ctx.database.db).list(null, 0, null)).rows.filter((r) => r.remark === 'Transfer seed source');

  before(async () => {
    token = await h().adminToken();
    h().ctx.tasks.configure({ pollMs: 50, heartbeatMs: 100 });
    await setSettings(h(), token, { seed_async_threshold: String(THRESHOLD) });
    for (const n of [1, 2, 3, 4]) putRaw(filesDir(h()), `as/f${n}.bin`, bytes(SIZE, 50 + n));
    putRaw(filesDir(h()), 'as/edge.bin', bytes(THRESHOLD, 59));
  });
  after(() => probe?.restore());

  test('total exactly at the threshold: synchronous, paths in the reply', async () => {
    const d = await generated(h(), token, { paths: ['/as/edge.bin'], formats: ['oss'], output_path: '/as-sync' });
    assert.equal(d.async, undefined);
    assert.deepEqual(d.paths, ['/as-sync/edge.oss']);
  });

  test('above the threshold without output_path → 400 naming output_path, no task', async () => {
    const r = await generate(h(), token, { paths: ['/as/f1.bin'], formats: ['oss'] });
    assert.equal(r.status, 400);
    assert.match(r.body.message, /^output_path: required for asynchronous seed generation/);
    const undone = await h().get('/api/task/seed_generate/undone', { token });
    assert.deepEqual(undone.body.data, []);
  });

  test('above the threshold: {async: true, task}; undone shows progress; done after; sidecars appear only then', async () => {
    slow();
    const r = await generated(h(), token, { paths: ['/as/f1.bin'], formats: ['oss', 'cas'], output_path: '/as-out1' });
    assert.equal(r.async, true);
    assert.equal(r.task.name, 'generate seed for /as/f1.bin');
    assert.equal(r.task.creator, 'admin');
    assert.ok([0, 1].includes(r.task.state));
    const tid = r.task.id as string;
    const mid = await until(async () => {
      const list = (await h().get('/api/task/seed_generate/undone', { token })).body.data as { id: string; progress: number; state: number }[];
      const t = list.find((x) => x.id === tid);
      return t && t.state === 1 && t.progress > 0 && t.progress < 100 ? t : null;
    }, 10_000, 'progress in undone');
    assert.equal(mid.state, 1);
    assert.equal(existsSync(join(filesDir(h()), 'as-out1/f1.oss')), false, 'nothing written while hashing');
    await h().ctx.tasks.settle(tid);
    const done = (await h().get('/api/task/seed_generate/done', { token })).body.data.find((x: { id: string }) => x.id === tid);
    assert.equal(done.state, 2, done.error);
    assert.equal(done.progress, 100);
    assert.equal(done.total_bytes, SIZE);
    const seed = decodeOss(readFileSync(join(filesDir(h()), 'as-out1/f1.oss')));
    assert.equal(seed.files[0]!.hashes.md5, coreutils('md5', join(filesDir(h()), 'as/f1.bin')));
    assert.ok(existsSync(join(filesDir(h()), 'as-out1/f1.cas')));
    assert.equal(probe!.count, 1);
    assert.equal(probe!.open, 0);
  });

  test('cancel stops hashing promptly: canceled, no artifact, no share, the read stream released', async () => {
    const p = slow();
    const sharesBefore = (await seedShares()).length;
    const r = await generated(h(), token, { paths: ['/as/f2.bin'], formats: ['oss'], share_files: ['/as/f2.bin'], output_path: '/as-out2' });
    const tid = r.task.id as string;
    await until(async () => {
      const t = await task(tid);
      return t.state === 1 && t.progress > 0;
    }, 10_000, 'running');
    const c = await h().post(`/api/task/seed_generate/cancel?tid=${tid}`, undefined, { token });
    assert.equal(c.status, 200, c.body.message);
    const t = await until(async () => {
      const x = await task(tid);
      return x.state === 4 ? x : null;
    }, 10_000, 'canceled');
    assert.ok(t.progress < 100);
    assert.equal(existsSync(join(filesDir(h()), 'as-out2/f2.oss')), false);
    assert.equal((await seedShares()).length, sharesBefore);
    assert.equal(p.count, 1);
    await until(async () => p.open === 0, 2000, 'the read stream to close');
    // Retry of a canceled task runs it to success.
    p.restore();
    const retry = await h().post(`/api/task/seed_generate/retry?tid=${tid}`, undefined, { token });
    assert.equal(retry.status, 200, retry.body.message);
    const end = await h().ctx.tasks.settle(tid);
    assert.equal(end.state, 2, end.error);
    assert.ok(existsSync(join(filesDir(h()), 'as-out2/f2.oss')));
    assert.equal((await seedShares()).length, sharesBefore + 1);
  });

  test('a second attempt of the same task (retry, take-over after a crash) reuses the shares of the first', async () => {
    putRaw(filesDir(h()), 'as/share-me.bin', bytes(5000, 12));
    const admin = (await h().ctx.usersRepo.byUsername('admin'))!;
    const body = { paths: ['/as/share-me.bin'], formats: ['oss' as const], share_files: ['/as/share-me.bin'], output_path: '/as-out-share' };
    const before = (await seedShares()).length;
    const attempt = async () => executeGeneration(h().ctx.seeds, admin, await prepareGeneration(h().ctx.seeds, admin, body), { origin: 'http://127.0.0.1', taskId: 'task-under-test' });
    const first = await attempt();
    const second = await attempt();
    assert.equal((await seedShares()).length, before + 1, 'one share, not one per attempt');
    assert.equal(first.seed.files[0]!.sources?.[0]?.url, second.seed.files[0]!.sources?.[0]?.url);
    assert.match(String(first.seed.files[0]!.sources?.[0]?.url), /\/sd\/sg/);
    // without a task (a synchronous request) every call makes its own share
    await generated(h(), token, { ...body, output_path: '/as-out-share2' });
    assert.equal((await seedShares()).length, before + 2);
  });

  test('a restart of the only instance mid-task resumes the task to success', async () => {
    slow();
    const r = await generated(h(), token, { paths: ['/as/f3.bin', '/as/f4.bin'], formats: ['oss', 'torrent'], output_path: '/as-out3', name: 'pair' });
    const tid = r.task.id as string;
    assert.equal(r.task.name, 'generate seed for 2 files');
    await until(async () => (await task(tid)).progress > 0, 10_000, 'progress');
    await h().close();
    probe = null;
    await h().open();
    const end = await h().ctx.tasks.settle(tid, 30_000);
    assert.equal(end.state, 2, end.error);
    assert.equal(end.attempts, 2);
    const seed = decodeOss(readFileSync(join(filesDir(h()), 'as-out3/pair.oss')));
    assert.deepEqual(
      seed.files.map((f) => f.hashes.sha1),
      ['f3.bin', 'f4.bin'].map((n) => coreutils('sha1', join(filesDir(h()), 'as', n))),
    );
    assert.ok(existsSync(join(filesDir(h()), 'as-out3/pair.torrent')));
    token = await h().adminToken();
  });
});
