import Router from '@koa/router';
import type { Registry } from 'prom-client';
import type { GatewayState } from '../gateway-state.js';

export type DependencyProbe = () => Promise<boolean>;

/** Liveness, readiness (the three servers, each probed with a real request) and Prometheus metrics. */
export function healthRoutes(deps: {
  probes: Record<string, DependencyProbe>;
  metrics: Registry;
}): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/ready', async (ctx) => {
    const entries = await Promise.all(
      Object.entries(deps.probes).map(async ([name, probe]) => [name, await probe().catch(() => false)] as const),
    );
    const ready = entries.every(([, ok]) => ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      ready,
      servers: Object.fromEntries(entries.map(([name, ok]) => [name, ok ? 'ready' : 'unavailable'])),
    };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = deps.metrics.contentType;
    ctx.body = await deps.metrics.metrics();
  });
  return router;
}
