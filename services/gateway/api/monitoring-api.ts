import { z } from 'zod';
import { json } from './phone-schemas.js';
import { routeGroup } from './phone-route.js';

/** routes/health.ts and api/openapi-route.ts: what operators, probes and tools read; no token, no START/END lines. */

const Readiness = z
  .object({
    ready: z.boolean(),
    servers: z.record(z.string(), z.enum(['ready', 'unavailable'])).meta({
      description: 'Kafka, Cassandra and the schema registry, each probed with a real request',
    }),
  })
  .meta({ id: 'Readiness' });

export const monitoringApi = routeGroup('monitoring', [
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness: the process answers',
    answers: { 200: { description: 'Alive', content: json(z.object({ status: z.literal('ok') })) } },
    refusals: {},
  },
  {
    method: 'get',
    path: '/ready',
    summary: 'Readiness: every server the gateway needs answers',
    answers: {
      200: { description: 'Ready', content: json(Readiness) },
      503: { description: 'A server does not answer: `servers` says which', content: json(Readiness) },
    },
    refusals: {},
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics of this gateway',
    answers: {
      200: { description: 'The text exposition format', content: { 'text/plain': z.string() } },
    },
    refusals: {},
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    answers: {
      200: {
        description: 'The OpenAPI 3.1 document of the phone API',
        content: json(z.looseObject({ openapi: z.string() })),
        headers: z.object({ ETag: z.string(), 'Cache-Control': z.string() }),
      },
      304: { description: 'Not modified since the ETag in If-None-Match' },
    },
    refusals: {},
  },
]);
