import type { Middleware } from 'koa';
import { endLine, startLine } from '../../../shared/logger/index.js';
import type { WebLog } from '../web-log.js';
import type { GatewayState } from '../gateway-state.js';

function nowMicros(): number {
  return Math.round(performance.timeOrigin * 1000 + performance.now() * 1000);
}

/**
 * The spec's START and END lines: on standard output (what operators grep) and in the web server log. The END
 * line carries the uuid of the user the call was made for, once the route has identified one.
 */
export function callLog({
  webLog,
  stdout,
}: {
  webLog: WebLog;
  stdout: NodeJS.WritableStream;
}): Middleware<GatewayState> {
  return async (ctx, next) => {
    const started = nowMicros();
    const { method, path } = ctx;
    stdout.write(`${startLine(started, method, path)}\n`);
    webLog.debug(`START ${method} ${path}`);
    try {
      await next();
    } finally {
      const ended = nowMicros();
      const duration = (ended - started) / 1e6;
      const uuid = ctx.state.userUuid ?? null;
      stdout.write(`${endLine(ended, method, path, uuid, duration)}\n`);
      webLog.debug(`END ${method} ${path} ${uuid ?? ''} ${duration}`);
    }
  };
}
