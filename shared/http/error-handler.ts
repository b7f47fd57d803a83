import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { isAppError } from '../errors/index.js';
import { escapeForLog } from '../logger/index.js';
import { RETRY_AFTER_SECONDS } from './retry-after.js';
import { drainBody } from './drain-body.js';

/**
 * The one place errors become HTTP answers. An AppError answers its own status with its message; anything else
 * is a bug: 500 with a generic message and a request id, and the stack printed to standard output (the spec).
 */
/** What the error handler reads of a request's state: whether its body was left unread (set by the body limits). */
export interface BodyState {
  bodyUnread?: boolean;
}

export function errorHandler({ stdout }: { stdout: NodeJS.WritableStream }): Middleware<BodyState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        if (ctx.state.bodyUnread && !(await drainBody(ctx.req))) ctx.set('Connection', 'close');
        ctx.body = { error: { code: 'NOT_FOUND', message: `no endpoint ${ctx.method} ${ctx.path}` } };
      }
    } catch (err) {
      if (isAppError(err)) ctx.set(err.headers as Record<string, string>);
      // A refusal decided before the body was read (too large, no such path, over budget, too slow) leaves bytes
      // on the socket. A permanent refusal (4xx) drains them, within bounds, so that the sender reads it instead of a
      // broken pipe; a sender too slow for its body (408) or told to come back later (5xx) is not waited for: the
      // connection closes after the answer, and no sender can keep it busy.
      if (isAppError(err) && ctx.state.bodyUnread) {
        const drains = err.status < 500 && err.status !== 408;
        if (!(drains && (await drainBody(ctx.req)))) ctx.set('Connection', 'close');
      }
      if (isAppError(err) && err.status < 500) {
        ctx.status = err.status;
        ctx.body = { error: { code: err.code, message: err.message, ...err.details } };
        return;
      }
      if (isAppError(err) && err.retriable) {
        const retryAfter = Number(err.headers['Retry-After'] ?? RETRY_AFTER_SECONDS.dependency);
        ctx.status = err.status;
        ctx.set('Retry-After', String(retryAfter));
        ctx.body = { error: { code: err.code, message: err.message, retry_after_seconds: retryAfter } };
        stdout.write(
          `${escapeForLog(`${err.name}: ${err.message} (${ctx.method} ${ctx.path})${err.cause instanceof Error ? `: ${err.cause.message}` : ''}`)}\n`,
        );
        return;
      }
      const requestId = randomUUID();
      stdout.write(
        `Exception while handling ${escapeForLog(`${ctx.method} ${ctx.path}`)} (request ${requestId}):\n${printableStack(err)}\n`,
      );
      ctx.status = 500;
      ctx.body = { error: { code: 'INTERNAL', message: 'internal server error', request_id: requestId } };
    }
  };
}

/**
 * The stack as lines an operator reads, with the message (which may quote request input) escaped onto one line:
 * the frames below it come from the code, so they keep their line breaks.
 */
function printableStack(err: unknown): string {
  if (!(err instanceof Error)) return escapeForLog(String(err));
  const head = `${err.name}: ${err.message}`;
  const stack = err.stack ?? head;
  return stack.startsWith(head) ? `${escapeForLog(head)}${stack.slice(head.length)}` : escapeForLog(stack);
}
