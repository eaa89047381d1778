/** The response envelope of every JSON reply (contract §2), and its TypeBox schemas for OpenAPI. */
import { Type, type TSchema } from 'typebox';

export interface Envelope<T> {
  code: 200;
  message: string;
  data: T;
}

export function ok<T>(data: T): Envelope<T>;
export function ok(): Envelope<null>;
export function ok<T>(data?: T): Envelope<T | null> {
  return { code: 200, message: 'success', data: data === undefined ? null : data };
}

/** Response schema for a successful reply whose `data` has the given schema. */
export const OkOf = <T extends TSchema>(data: T) =>
  Type.Object({ code: Type.Literal(200), message: Type.String(), data });

export const OkNull = OkOf(Type.Null());

export const ErrorEnvelope = Type.Object({
  code: Type.Integer(),
  message: Type.String(),
  data: Type.Union([Type.Null(), Type.Object({}, { additionalProperties: true })]),
});

/** `{content, total}` list payload. */
export const PageOf = <T extends TSchema>(item: T) => Type.Object({ content: Type.Array(item), total: Type.Integer() });

/** Optional paging query (`page` from 1, `per_page`); absent = everything. */
export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
});

export function paging(q: { page?: number; per_page?: number }): { offset: number; limit: number | null } {
  if (!q.per_page) return { offset: 0, limit: null };
  return { offset: ((q.page ?? 1) - 1) * q.per_page, limit: q.per_page };
}
