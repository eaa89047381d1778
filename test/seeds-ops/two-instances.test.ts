/**
 * Two Ferry processes on different loopback ports (contract §10.5, issue #7): instance A
 * generates a seed with share and direct sources (`seed_site_url` = A); instance B, trusting A's
 * host:port, runs `quick_save` → `offline_download` tasks fetch from A → the files land on B,
 * verified. A source whose bytes changed on A after generation → the task fails with
 * "hash mismatch" and nothing lands on B. Without the trust, B never contacts A.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startFerry, ok, type Ferry } from '../fs/helpers.js';
import { requireBuild } from '../support/process.js';
import { ALL_SIX, bytes, sleep } from './helpers.js';

const ONE = bytes(700_000, 51);
const TWO = bytes(33_333, 52);
const THREE = bytes(250_000, 53);

async function settings(f: Ferry, values: Record<string, string>): Promise<void> {
  await ok(f.call('POST', '/api/admin/setting/save', Object.entries(values).map(([key, value]) => ({ key, value }))));
}

async function settled(f: Ferry, tid: string): Promise<any> {
  const end = Date.now() + 60_000;
  for (;;) {
    const t = await ok<any>(f.call('GET', `/api/task/offline_download/info?tid=${tid}`));
    if ([2, 4, 7].includes(t.state)) return t;
    if (Date.now() > end) throw new Error(`task ${tid} still ${t.state} ${t.status}`);
    await sleep(100);
  }
}

describe('seed transfer between two Ferry processes', () => {
  let a: Ferry;
  let b: Ferry;
  let seedData: string;
  let seedThree: string;

  before(async () => {
    requireBuild();
    [a, b] = await Promise.all([startFerry(), startFerry({ FERRY_TASK_POLL_MS: '200' })]);
    assert.notEqual(new URL(a.url).port, new URL(b.url).port);
    mkdirSync(join(a.files, 'src'), { recursive: true });
    writeFileSync(join(a.files, 'src/one.bin'), ONE);
    writeFileSync(join(a.files, 'src/two.bin'), TWO);
    writeFileSync(join(a.files, 'three.bin'), THREE);
    await settings(a, { seed_site_url: a.url });
    const gen = await ok<any>(a.call('POST', '/api/fs/seed/generate', {
      paths: ['/src'], formats: ['oss'], hash_matrix: ALL_SIX, piece_size: 64 * 1024,
      share_files: ['/src/one.bin'], direct_files: ['/src/one.bin', '/src/two.bin'], output_path: '/seeds',
    }));
    seedData = gen.artifacts[0].seed_data;
    const sources = Object.fromEntries(gen.seed.files.map((f: any) => [f.path, f.sources.map((s: any) => s.type)]));
    assert.deepEqual(sources, { 'one.bin': ['openlist-share', 'openlist-direct'], 'two.bin': ['openlist-direct'] });
    assert.ok(gen.seed.files[0].sources[0].url.startsWith(`${a.url}/sd/`));
    const three = await ok<any>(a.call('POST', '/api/fs/seed/generate', { paths: ['/three.bin'], formats: ['cas', 'oss'], direct_files: ['/three.bin'], output_path: '/seeds3' }));
    seedThree = three.artifacts.find((x: any) => x.format === 'oss').seed_data;
    await ok(b.call('POST', '/api/fs/mkdir', { path: '/dst' }));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('without A in seed_trusted_source_hosts, B refuses the sources (no task)', async () => {
    const d = await ok<any>(b.call('POST', '/api/fs/seed/quick_save', { seed_data: seedData, path: '/dst' }));
    assert.deepEqual(d.results.map((r: any) => r.method), ['unavailable', 'unavailable']);
    assert.match(d.results[0].error, /no usable source .*neither this site/);
    assert.deepEqual(readdirSync(join(b.files, 'dst')), []);
  });

  test('B trusts A: quick_save → offline_download tasks → the files land on B, byte for byte', async () => {
    await settings(b, { seed_trusted_source_hosts: new URL(a.url).host });
    const d = await ok<any>(b.call('POST', '/api/fs/seed/quick_save', { seed_data: seedData, path: '/dst', update_channel: true }));
    assert.deepEqual(d.results.map((r: any) => [r.path, r.method]), [['one.bin', 'offline_download'], ['two.bin', 'offline_download']]);
    for (const r of d.results) {
      const t = await settled(b, r.task.id);
      assert.equal(t.state, 2, `${r.path}: ${t.error}`);
    }
    assert.deepEqual(readFileSync(join(b.files, 'dst/one.bin')), ONE);
    assert.deepEqual(readFileSync(join(b.files, 'dst/two.bin')), TWO);
    assert.deepEqual(d.seed.channels, [{ driver: 'local', mount_path: '/' }]);
    // the share source was the one used for one.bin: A counted one access
    const shares = await ok<any>(a.call('GET', '/api/share/list'));
    assert.equal(shares.content[0].accessed, 1);
  });

  test('what B holds now is found by hash: the same seed again is a rapid upload, nothing fetched', async () => {
    await ok(b.call('POST', '/api/fs/mkdir', { path: '/dst2' }));
    const d = await ok<any>(b.call('POST', '/api/fs/seed/quick_save', { seed_data: seedData, path: '/dst2' }));
    assert.deepEqual(d.results.map((r: any) => r.method), ['rapid_upload', 'rapid_upload']);
    const shares = await ok<any>(a.call('GET', '/api/share/list'));
    assert.equal(shares.content[0].accessed, 1);
    assert.deepEqual(readFileSync(join(b.files, 'dst2/one.bin')), ONE);
  });

  test('A serves different bytes than the seed says: hash mismatch, nothing lands on B', async () => {
    const changed = Buffer.from(THREE);
    changed[1234] = changed[1234]! ^ 0x55;
    writeFileSync(join(a.files, 'three.bin'), changed);
    await ok(b.call('POST', '/api/fs/mkdir', { path: '/dst3' }));
    const d = await ok<any>(b.call('POST', '/api/fs/seed/quick_save', { seed_data: seedThree, path: '/dst3' }));
    assert.equal(d.results[0].method, 'offline_download');
    const t = await settled(b, d.results[0].task.id);
    assert.equal(t.state, 7);
    assert.match(t.error, /^hash mismatch: \/dst3\/three\.bin/);
    assert.equal(existsSync(join(b.files, 'dst3/three.bin')), false);
    assert.deepEqual(readdirSync(join(b.files, 'dst3')), []);
  });
});
