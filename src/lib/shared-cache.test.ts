import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { MAX_STALE_MS, SharedCache } from './shared-cache.js';

/** A cache over loads the test resolves by hand; `loads` counts the reads begun. */
function harness() {
  const pending: ((v: number) => void)[] = [];
  let loads = 0;
  const cache = new SharedCache<number>({
    freshMs: 500,
    load: () => {
      loads++;
      return new Promise<number>((r) => pending.push(r));
    },
  });
  const settleNext = async (v: number) => {
    assert.ok(pending.length > 0, 'a load is in flight');
    pending.shift()!(v);
    await new Promise((r) => setImmediate(r));
  };
  return { cache, settleNext, loads: () => loads, inFlight: () => pending.length };
}

/** Whether `p` has settled after the microtasks and one macrotask ran. */
async function settled<T>(p: Promise<T>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

test('SharedCache: fresh values are shared; past freshMs the old value is served while exactly one reload runs; past the hard bound callers wait', async (t) => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  t.after(() => mock.timers.reset());
  const { cache, settleNext, loads, inFlight } = harness();

  // no value yet: callers wait for one shared load
  const a = cache.get();
  const b = cache.get();
  assert.equal(await settled(a), false);
  await settleNext(1);
  assert.equal(await a, 1);
  assert.equal(await b, 1);
  assert.equal(loads(), 1);

  mock.timers.tick(400);
  assert.equal(await cache.get(), 1);
  assert.equal(loads(), 1, 'fresh: no reload');

  // due: served at once from the cache, one reload in the background however many callers
  mock.timers.tick(200);
  for (let i = 0; i < 5; i++) assert.equal(await cache.get(), 1);
  assert.equal(loads(), 2);
  assert.equal(inFlight(), 1);
  await settleNext(2);
  assert.equal(await cache.get(), 2, 'the reload is served once it is in');
  assert.equal(loads(), 2);

  // older than the hard bound (the reload began then): callers wait, and get the new value
  mock.timers.tick(MAX_STALE_MS + 1);
  const c = cache.get();
  assert.equal(await settled(c), false, 'a value older than MAX_STALE_MS is not served');
  await settleNext(3);
  assert.equal(await c, 3);

  // a background reload slower than the hard bound: callers past the bound wait for it, never get the old value
  mock.timers.tick(600);
  assert.equal(await cache.get(), 3);
  assert.equal(inFlight(), 1);
  mock.timers.tick(MAX_STALE_MS);
  const d = cache.get();
  assert.equal(await settled(d), false);
  await settleNext(4);
  assert.equal(await d, 4);
  assert.equal(loads(), 4, 'the waiting caller shared the reload in flight');
});

test('SharedCache: invalidate makes the next caller wait for a read begun after it; a read begun before never refills the cache', async (t) => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  t.after(() => mock.timers.reset());
  const { cache, settleNext, loads } = harness();
  const first = cache.get();
  await settleNext(1);
  assert.equal(await first, 1);

  mock.timers.tick(600);
  assert.equal(await cache.get(), 1); // starts a background reload (it will return the old data: 10)
  cache.invalidate(); // a local write
  const e = cache.get();
  assert.equal(await settled(e), false, 'after invalidate nothing cached is served');
  assert.equal(loads(), 3, 'a new read began after the invalidation');
  await settleNext(10); // the read begun before the write ends last-but-one
  await settleNext(20);
  assert.equal(await e, 20);
  assert.equal(await cache.get(), 20, 'the read begun before invalidate did not refill the cache');
});

test('SharedCache: a failed background reload keeps the old value until the hard bound, then callers see the error', async (t) => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  t.after(() => mock.timers.reset());
  let fail = false;
  const errors: unknown[] = [];
  const cache = new SharedCache<number>({
    freshMs: 500,
    load: () => (fail ? Promise.reject(new Error('database down')) : Promise.resolve(7)),
    onError: (e) => errors.push(e),
  });
  assert.equal(await cache.get(), 7);
  fail = true;
  mock.timers.tick(600);
  assert.equal(await cache.get(), 7);
  await new Promise((r) => setImmediate(r));
  assert.equal(errors.length, 1);
  mock.timers.tick(MAX_STALE_MS);
  await assert.rejects(cache.get(), /database down/);
  fail = false;
  assert.equal(await cache.get(), 7);
});
