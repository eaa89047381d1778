/** Request errors that name their field: every seed operation's 400s say which field is wrong and why. */
import { AppError, badRequest, isAppError } from '../../../lib/errors.js';
import { SeedFormatError } from '../formats/index.js';

/** Rethrows a format error or an app error with the field in front of the message. */
export function withField<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw fieldError(field, e);
  }
}

/** `label` (default: the field) prefixes the message; `data.field` is the field. */
export function fieldError(field: string, e: unknown, label = field): unknown {
  if (e instanceof SeedFormatError) return badRequest(e.message, { field: e.field });
  if (isAppError(e)) return new AppError(e.code, `${label}: ${e.message}`, { ...(e.data ?? {}), field });
  return e;
}

/**
 * Runs `fn` (decoding, validating or encoding a seed); a SeedFormatError becomes a 400 whose message starts
 * with `field` and says what is wrong (`data.seed_field`, `data.file`). Anything else a decoder throws on
 * hostile bytes is a 400 too, never a 500.
 */
export function seedStep<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw seedError(field, e);
  }
}

/** `seedStep` for work that runs off the calling thread (seed analysis). */
export async function seedStepAsync<T>(field: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw seedError(field, e);
  }
}

function seedError(field: string, e: unknown): unknown {
  {
    if (e instanceof SeedFormatError) {
      return badRequest(`${field}: ${e.message}`, { field, seed_field: e.field, ...(e.file === undefined ? {} : { file: e.file }) });
    }
    if (isAppError(e)) return e;
    if (e instanceof RangeError || e instanceof TypeError || e instanceof SyntaxError) {
      return badRequest(`${field}: the seed could not be read (${e.message})`, { field });
    }
    return e;
  }
}
