import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { combineTasks, defineTask, payloadProblem, taskKind } from './task-definition.js';
import type { TaskRunContext } from './tasks.service.js';

test('combineTasks: one type run by two modules; each payload goes to the part whose schema it matches', async () => {
  const a = defineTask(taskKind('shared', Type.Object({ file: Type.String() })), async (p) => `a:${p.file}`, { authorize: (p) => void (p.file === 'x' && (() => { throw new Error('no x'); })()) });
  const b = defineTask(taskKind('shared', Type.Object({ tool: Type.String() })), async (p) => `b:${p.tool}`);
  const both = combineTasks('shared', [a, b]);
  const run = {} as TaskRunContext;
  assert.equal(await both.perform({ file: 'f' }, run), 'a:f');
  assert.equal(await both.perform({ tool: 't' }, run), 'b:t');
  assert.equal(payloadProblem(both, { file: 'f' }), null);
  assert.notEqual(payloadProblem(both, { other: 1 }), null);
  assert.throws(() => both.authorize!({ file: 'x' }, {} as never), /no x/);
  await assert.rejects(async () => both.perform({ file: 'f', tool: 't' }, run), /matches 2 of its 2 kinds/);
  assert.throws(() => combineTasks('other', [a]), /every part must be of that type/);
  assert.equal(combineTasks('shared', [a]), a);
});
