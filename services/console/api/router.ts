import Router from '@koa/router';
import type { z } from 'zod';
import { ForbiddenError, ValidationError } from '../../../shared/errors/index.js';
import { requireJsonType } from '../../../shared/http/index.js';
import { scopeOf } from './caller.js';
import type { ConsoleRoute } from './route-table.js';

/** A request part checked against its schema; a mismatch is a 400 listing each problem, and nothing runs. */
function parsed(schema: z.ZodType | undefined, value: unknown, part: string): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(`invalid ${part}`, {
    details: { issues: result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
  });
}

/** The console's JSON endpoints on a router: each validates, checks the role, and answers its result as JSON. */
export function consoleRouter(routes: readonly ConsoleRoute[]): Router {
  const router = new Router();
  for (const r of routes) {
    router[r.method](r.path, async (ctx) => {
      if (r.operator && ctx.state.operator?.role !== 'operator')
        throw new ForbiddenError('this action needs the operator role');
      if (!r.programScoped && ctx.state.operator?.programs !== undefined)
        throw new ForbiddenError('this needs a console role over the whole deployment, not one over some programs');
      // The web client sends every POST as JSON; a form or text/plain POST is what a cross-site page could send.
      if (r.method === 'post') requireJsonType(ctx);
      const body = r.body ? (ctx.request as { body?: unknown }).body : undefined;
      ctx.body = await r.handle({
        params: parsed(r.params, ctx.params, 'path'),
        query: parsed(r.query, ctx.query, 'query'),
        body: parsed(r.body, body ?? {}, 'body'),
        scope: scopeOf(ctx),
        ctx,
      });
      ctx.set('Cache-Control', 'no-store');
    });
  }
  return router;
}
