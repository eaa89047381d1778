/** The preview routes are in the OpenAPI document (their TypeBox schemas serialise). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Harness } from '../support/harness.js';

const h = new Harness('sqlite');
before(() => h.start());
after(() => h.stop());

test('openapi lists the seed preview operations', async () => {
  const r = await h.get('/api/openapi.json');
  assert.equal(r.status, 200);
  const paths = Object.keys((r.body as unknown as { paths: Record<string, unknown> }).paths);
  for (const op of ['parse', 'upload_parse', 'convert', 'diagnose', 'update', 'update_channels', 'capabilities']) {
    assert.ok(paths.includes(`/api/fs/seed/${op}`), op);
  }
  assert.ok(!paths.includes('/fs/seed/parse'), 'root aliases are hidden');
});
