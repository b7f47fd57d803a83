import type { Middleware } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GatewayState } from '../gateway-state.js';
import type { BodyBudget } from './body-budget.js';

export interface GatewayMetrics {
  /** What `GET /metrics` serves (routes/health.ts). */
  registry: Registry;
  /** Times every call, labelled by route template and status. */
  timeCalls: Middleware<GatewayState>;
  /** Counts entries Kafka acknowledged. */
  entriesAccepted(count: number): void;
  /** Entries of a suspended subgroup, answered and stored nowhere, by program. */
  entriesIgnored(program: string, count: number): void;
}

/**
 * The gateway's Prometheus metrics: the process's defaults, call durations by route template (never by raw path: a
 * label per path sent would let any client grow the registry), entries accepted, and the body bytes each budget
 * holds.
 */
export function gatewayMetrics({ bodyBudgets }: { bodyBudgets: Readonly<Record<string, BodyBudget>> }): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const calls = new Histogram({
    name: 'itinera_gateway_call_seconds',
    help: 'Duration of phone API calls, in seconds',
    labelNames: ['path', 'status'],
    buckets: [0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const accepted = new Counter({
    name: 'itinera_gateway_entries_accepted_total',
    help: 'Entries acknowledged by Kafka',
    registers: [registry],
  });
  const ignored = new Counter({
    name: 'itinera_gateway_entries_ignored_total',
    help: "Entries answered but stored nowhere: puts from a program's suspended subgroups",
    labelNames: ['program'],
    registers: [registry],
  });
  new Gauge({
    name: 'itinera_gateway_body_bytes_held',
    help: 'Request body bytes the gateway holds, by budget (puts, other calls)',
    labelNames: ['budget'],
    registers: [registry],
    collect() {
      for (const [budget, held] of Object.entries(bodyBudgets)) this.set({ budget }, held.heldBytes);
    },
  });
  return {
    registry,
    timeCalls: async (ctx, next) => {
      const end = calls.startTimer();
      try {
        await next();
      } finally {
        end({ path: ctx.state.route ?? 'unmatched', status: String(ctx.status) });
      }
    },
    entriesAccepted: (count) => accepted.inc(count),
    entriesIgnored: (program, count) => ignored.inc({ program }, count),
  };
}
