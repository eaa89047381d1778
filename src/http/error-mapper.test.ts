import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hideBasePath, toErrorReply, validationMessage } from './error-mapper.js';
import { AppError } from '../lib/errors.js';
import { DriverError } from '../modules/storages/drivers/types.js';

test('storage errors keep their kind as status and lose the user base path', () => {
  const r = toErrorReply(new DriverError('is_a_directory', 'is a directory: /home/u/x'));
  assert.equal(r.code, 400);
  assert.equal(hideBasePath(r, '/home/u').message, 'is a directory: /x');
  assert.equal(hideBasePath({ ...r, message: 'not found: /home/u' }, '/home/u').message, 'not found: /');
  assert.equal(hideBasePath(r, '/').message, 'is a directory: /home/u/x');
  assert.equal(toErrorReply(new DriverError('io', 'disk on fire')).code, 500);
});

test('app errors and unknown errors', () => {
  assert.deepEqual(toErrorReply(new AppError(409, 'taken', { hint: 'x' })), { code: 409, message: 'taken', data: { hint: 'x' } });
  assert.deepEqual(toErrorReply(new Error('secret detail')), { code: 500, message: 'internal server error', data: null });
});

test('validation messages name the field', () => {
  assert.equal(validationMessage([{ keyword: 'required', instancePath: '', params: { missingProperty: 'path' } }], 'body'), 'body.path is required');
  assert.equal(validationMessage([{ keyword: 'type', instancePath: '/names/2', params: { type: 'string' } }], 'body'), 'body.names[2] must be string');
  assert.equal(validationMessage([{ keyword: 'type', instancePath: '/id', params: { type: 'integer' } }], 'querystring'), 'query.id must be integer');
});
