/**
 * Ferry's application errors. Every failure a user can cause is one of these;
 * the single HTTP mapper (src/http/error-mapper.ts) turns them into the envelope
 * `{code, message, data}` with HTTP status = code.
 */
export class AppError extends Error {
  /**
   * The code OpenList clients expect in the body while `api_errors_http_200` is on, when it differs from `code`
   * (a wrong login password: 400, which the OpenList web UI shows, where 401 makes it silently reload the login).
   */
  compatCode: number | null = null;

  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.name = 'AppError';
  }

  /** Sets `compatCode`; returns this error. */
  withCompatCode(code: number): this {
    this.compatCode = code;
    return this;
  }

  /** What a client is told (the message, unless a subclass words it differently). */
  replyMessage(): string {
    return this.message;
  }
}

export const badRequest = (message: string, data?: Record<string, unknown>) => new AppError(400, message, data ?? null);
export const unauthorized = (message: string) => new AppError(401, message);
export const forbidden = (message: string, data?: Record<string, unknown>) => new AppError(403, message, data ?? null);
export const notFound = (message: string) => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);
export const preconditionFailed = (message: string) => new AppError(412, message);
export const tooLarge = (message: string) => new AppError(413, message);
export const tooManyRequests = (message: string) => new AppError(429, message);

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
