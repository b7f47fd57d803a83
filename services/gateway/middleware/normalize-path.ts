import type { Middleware } from 'koa';

/**
 * The phone joins its server URL and the endpoint with a slash, so `connectUrl` values ending in `/` give
 * `//usercache/put`; and a study may serve Itinera under a prefix (`/api/usercache/put`). Both reach the route.
 */
export function normalizePath({ knownRoots }: { knownRoots: readonly string[] }): Middleware {
  return async (ctx, next) => {
    let path = ctx.path.replace(/\/{2,}/g, '/');
    const segments = path.split('/');
    const rootAt = segments.findIndex((s) => knownRoots.includes(s));
    if (rootAt > 1) path = `/${segments.slice(rootAt).join('/')}`;
    if (path !== ctx.path) ctx.path = path;
    return next();
  };
}
