import Router from '@koa/router';
import { NotFoundError } from '../../../shared/errors/index.js';
import type { GatewayState } from '../gateway-state.js';
import type { ProgramGate } from '../stores.js';

/**
 * A program's configuration at a stable address, public as OpenPATH's configuration repository is: an app build
 * whose configuration URL points here (instead of GitHub) joins the program from Itinera alone. The answer carries
 * the version as its ETag, and any origin may read it (the app reads it from its web view).
 */
export function programRoutes(deps: { programs: ProgramGate }): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/programs/:program/config.json', async (ctx) => {
    const served = await deps.programs.config(ctx.params['program'] ?? '');
    if (!served) throw new NotFoundError(`no program "${ctx.params['program']}"`);
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=60');
    ctx.etag = `"${served.config.version}"`;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = served.config;
  });
  return router;
}
