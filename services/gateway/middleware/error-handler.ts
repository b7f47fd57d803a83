import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { isAppError } from '../../../shared/errors/index.js';
import type { GatewayState } from '../gateway-state.js';

/** Seconds a phone should wait before retrying after a 503. */
const RETRY_AFTER_SECONDS = 30;

/**
 * The one place errors become HTTP answers. An AppError answers its own status with its message; anything else
 * is a bug: 500 with a generic message and a request id, and the stack printed to standard output (the spec).
 */
export function errorHandler({ stdout }: { stdout: NodeJS.WritableStream }): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: { code: 'NOT_FOUND', message: `no endpoint ${ctx.method} ${ctx.path}` } };
      }
    } catch (err) {
      if (isAppError(err) && err.status < 500) {
        ctx.status = err.status;
        ctx.body = { error: { code: err.code, message: err.message, ...err.details } };
        return;
      }
      if (isAppError(err) && err.retriable) {
        ctx.status = err.status;
        ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
        ctx.body = { error: { code: err.code, message: err.message, retry_after_seconds: RETRY_AFTER_SECONDS } };
        stdout.write(
          `${err.name}: ${err.message} (${ctx.method} ${ctx.path})${err.cause instanceof Error ? `: ${err.cause.message}` : ''}\n`,
        );
        return;
      }
      const requestId = randomUUID();
      const stack = err instanceof Error ? (err.stack ?? err.message) : String(err);
      stdout.write(`Exception while handling ${ctx.method} ${ctx.path} (request ${requestId}):\n${stack}\n`);
      ctx.status = 500;
      ctx.body = { error: { code: 'INTERNAL', message: 'internal server error', request_id: requestId } };
    }
  };
}
