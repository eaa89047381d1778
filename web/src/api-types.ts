/**
 * The server's wire shapes, generated at build time from its OpenAPI document (`npm run gen:api` →
 * src/generated/api.d.ts, not committed). The UI names the shapes it uses in types.ts; none is written by hand.
 */
import type { paths } from './generated/api.js';

type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never;

/** `data` of a route's successful reply. */
export type Data<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: infer R } }
  ? Json<R> extends { data: infer D }
    ? D
    : never
  : never;

/** A route's JSON request body. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
