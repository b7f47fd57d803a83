/**
 * Every error Itinera raises on purpose is an AppError: it says what went wrong (`code`), whether trying again
 * can help (`retriable`), and which HTTP status the gateway answers with (`status`). Context goes in `details`,
 * not in the message, so logs stay searchable. Anything that is not an AppError is a bug and answers 500.
 */
export const errorCodes = [
  'CONFIG_INVALID',
  'VALIDATION_FAILED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'METHOD_NOT_ALLOWED',
  'BODY_TIMEOUT',
  'OVERLOADED',
  'RATE_LIMITED',
  'AUTH_MISSING',
  'AUTH_FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PROGRAM_CLOSED',
  'DEPENDENCY_UNAVAILABLE',
  'MALFORMED_RECORD',
  'STACK_FAILED',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export interface AppErrorOptions {
  cause?: unknown;
  details?: Readonly<Record<string, unknown>>;
  /** HTTP headers the answer must carry (`Allow` on a 405). */
  headers?: Readonly<Record<string, string>>;
}

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly status: number;
  abstract readonly retriable: boolean;
  readonly details: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }
}

/** A configuration value is missing or malformed. Start-up stops. */
export class ConfigError extends AppError {
  readonly code = 'CONFIG_INVALID';
  readonly status = 500;
  readonly retriable = false;
}

/** The client sent something we will never accept as is. Nothing of the request was stored. */
export class ValidationError extends AppError {
  readonly code = 'VALIDATION_FAILED';
  readonly status = 400;
  readonly retriable = false;
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  readonly status = 413;
  readonly retriable = false;
}

export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  readonly status = 415;
  readonly retriable = false;
}

/** A known path called with a method it does not serve; the answer's `Allow` header lists those it does. */
export class MethodNotAllowedError extends AppError {
  readonly code = 'METHOD_NOT_ALLOWED';
  readonly status = 405;
  readonly retriable = false;
}

/** The client stopped sending its body, or sent it too slowly to ever finish. The connection is closed. */
export class BodyTimeoutError extends AppError {
  readonly code = 'BODY_TIMEOUT';
  readonly status = 408;
  readonly retriable = false;
}

/** The gateway itself is at a limit (bodies in flight, puts waiting): nothing was read or stored; retry later. */
export class OverloadedError extends AppError {
  readonly code = 'OVERLOADED';
  readonly status = 503;
  readonly retriable = true;
}

/** One client (an address or a token) asked for an expensive or sensitive action too often; `Retry-After` says when. */
export class RateLimitedError extends AppError {
  readonly code = 'RATE_LIMITED';
  readonly status = 429;
  readonly retriable = true;
}

/** No `user` token in the body. */
export class AuthMissingError extends AppError {
  readonly code = 'AUTH_MISSING';
  readonly status = 401;
  readonly retriable = false;
}

/** A token that is not accepted, or that names no registered user. The phone app treats 403 as "unknown user". */
export class ForbiddenError extends AppError {
  readonly code = 'AUTH_FORBIDDEN';
  readonly status = 403;
  readonly retriable = false;
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
  readonly status = 404;
  readonly retriable = false;
}

/** The request asks for something that contradicts what is under way (a second reset while one runs). */
export class ConflictError extends AppError {
  readonly code = 'CONFLICT';
  readonly status = 409;
  readonly retriable = false;
}

/** The participant's program is closed: its data is kept, nothing new is taken. */
export class ProgramClosedError extends AppError {
  readonly code = 'PROGRAM_CLOSED';
  readonly status = 410;
  readonly retriable = false;
}

/** Kafka, Cassandra or the schema registry did not answer in time. The client should retry later. */
export class DependencyUnavailableError extends AppError {
  readonly code = 'DEPENDENCY_UNAVAILABLE';
  readonly status = 503;
  readonly retriable = true;
}

/** A record on a topic is not in the form its schema says (no wire header, truncated): a dead letter, never retried. */
export class MalformedRecordError extends AppError {
  readonly code = 'MALFORMED_RECORD';
  readonly status = 422;
  readonly retriable = false;
}

/** The local stack could not be installed, started or provisioned. */
export class StackError extends AppError {
  readonly code = 'STACK_FAILED';
  readonly status = 500;
  readonly retriable = false;
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
