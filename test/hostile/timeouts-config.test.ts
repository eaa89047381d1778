/** The slow-client timeouts and the event-loop stats switch come from the environment. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

test('defaults: 60 s for headers and for an idle body, no event-loop stats', () => {
  const c = loadConfig({});
  assert.equal(c.headersTimeoutMs, 60_000);
  assert.equal(c.bodyIdleTimeoutMs, 60_000);
  assert.equal(c.eventLoopStats, false);
});

test('FERRY_HEADERS_TIMEOUT_MS, FERRY_BODY_IDLE_TIMEOUT_MS (0 = off) and FERRY_EVENT_LOOP_STATS are read', () => {
  const c = loadConfig({ FERRY_HEADERS_TIMEOUT_MS: '1500', FERRY_BODY_IDLE_TIMEOUT_MS: '0', FERRY_EVENT_LOOP_STATS: '1' });
  assert.deepEqual([c.headersTimeoutMs, c.bodyIdleTimeoutMs, c.eventLoopStats], [1500, 0, true]);
});

test('bad values are listed together', () => {
  assert.throws(
    () => loadConfig({ FERRY_HEADERS_TIMEOUT_MS: '5', FERRY_BODY_IDLE_TIMEOUT_MS: '1e3', FERRY_EVENT_LOOP_STATS: 'maybe' }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.equal(e.problems.length, 3);
      assert.match(e.problems.join('\n'), /FERRY_HEADERS_TIMEOUT_MS[\s\S]*FERRY_BODY_IDLE_TIMEOUT_MS[\s\S]*FERRY_EVENT_LOOP_STATS/);
      return true;
    },
  );
});
