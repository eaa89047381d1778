/** Helpers for the search tests: a build through the admin API (waiting for its task), a search, result paths. */
import assert from 'node:assert/strict';
import type { ApiReply, Harness } from '../support/harness.js';

/** POST /api/admin/index/{build|update} and waits for the task; returns the finished task row. */
export async function runIndexTask(h: () => Harness, token: string, verb: 'build' | 'update', body: Record<string, unknown> = {}) {
  const r = await h().post(`/api/admin/index/${verb}`, body, { token });
  assert.equal(r.status, 200, r.body.message);
  const row = await h().ctx.tasks.settle(r.body.data.id as string);
  assert.equal(row.state, 2, `index ${verb} ended in state ${row.state}: ${row.error}`);
  return row;
}

export const buildIndex = (h: () => Harness, token: string) => runIndexTask(h, token, 'build');

export function search(h: () => Harness, token: string, body: Record<string, unknown>): Promise<ApiReply> {
  return h().post('/api/fs/search', { parent: '/', page: 1, per_page: 100, ...body }, { token });
}

/** The results as paths (parent + name, as the user sees them). */
export function names(r: ApiReply): string[] {
  assert.equal(r.status, 200, r.body.message);
  return (r.body.data.content as { parent: string; name: string }[]).map((c) => (c.parent === '/' ? `/${c.name}` : `${c.parent}/${c.name}`));
}
