/** Asserts the fields (and JS types) a client reads: a missing field or a wrong type fails the test, naming both. */
import assert from 'node:assert/strict';

export type FieldType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'integer' | 'null';

export function assertShape(value: unknown, shape: Record<string, FieldType>, where = 'value'): void {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${where} must be an object, got ${JSON.stringify(value)}`);
  const o = value as Record<string, unknown>;
  for (const [k, t] of Object.entries(shape)) {
    assert.ok(k in o, `${where}.${k} is missing`);
    const v = o[k];
    const ok =
      t === 'array' ? Array.isArray(v) : t === 'null' ? v === null : t === 'integer' ? Number.isInteger(v) : t === 'object' ? v !== null && typeof v === 'object' && !Array.isArray(v) : typeof v === t;
    assert.ok(ok, `${where}.${k} must be ${t}, got ${JSON.stringify(v)}`);
  }
}
