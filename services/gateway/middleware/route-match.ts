import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { MethodNotAllowedError } from '../../../shared/errors/index.js';
import type { GatewayState } from '../gateway-state.js';

/**
 * Decides, before any body is read, which route a call is for: the template goes to `ctx.state.route` (body
 * limits and the per-route metrics key on it), a known path called with a method it does not serve is a 405
 * naming the methods it does (whatever the method: PROPFIND and TRACE included), and an unknown path is left
 * to the 404 at the end of the chain with its body unread.
 */
export function routeMatch({ routers }: { routers: readonly Router<GatewayState>[] }): Middleware<GatewayState> {
  return async (ctx, next) => {
    const allowed = new Set<string>();
    for (const router of routers) {
      const match = router.match(ctx.path, ctx.method);
      const served = match.pathAndMethod.find((layer) => layer.methods.length > 0);
      if (served) {
        ctx.state.route = String(served.path);
        return next();
      }
      for (const layer of match.path) for (const method of layer.methods) allowed.add(method);
    }
    if (allowed.size === 0) return next();
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', [...allowed, 'OPTIONS'].join(', '));
      return;
    }
    const list = [...allowed].join(', ');
    throw new MethodNotAllowedError(`${ctx.method} is not allowed on ${ctx.path}; use ${list}`, {
      headers: { Allow: list },
      details: { allow: [...allowed] },
    });
  };
}
