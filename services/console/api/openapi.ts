import { createDocument } from 'zod-openapi';
import { ErrorAnswer } from './schemas.js';
import type { ConsoleRoute } from './route-table.js';

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

/** /admin/openapi.json, generated from the same route table and schemas that validate the requests. */
export function consoleOpenApi(routes: readonly ConsoleRoute[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][r.method] = {
      summary: r.summary,
      description: [
        r.operator ? 'Operator role only.' : 'Readers and operators.',
        r.programScoped
          ? 'A program’s admin sees and acts within their programs.'
          : 'Deployment-wide readers and operators only, not a program’s admin.',
      ].join(' '),
      ...(r.params || r.query
        ? { requestParams: { ...(r.params ? { path: r.params } : {}), ...(r.query ? { query: r.query } : {}) } }
        : {}),
      ...(r.body ? { requestBody: json(r.body) } : {}),
      ...(r.method === 'post'
        ? { parameters: [{ in: 'header', name: 'x-csrf-token', required: true, schema: { type: 'string' } }] }
        : {}),
      responses: {
        '200': { description: 'OK', ...json(r.response) },
        '400': { description: 'The request does not match its schema', ...json(ErrorAnswer) },
        '401': { description: 'No console session: log in at /admin/login', ...json(ErrorAnswer) },
        '403': {
          description: 'Missing CSRF token, or the operator role or a deployment-wide role is needed',
          ...json(ErrorAnswer),
        },
      },
    };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Itinera operators’ console API',
      version,
      description:
        'The JSON behind the console pages under /admin. A session cookie from the OpenID Connect login is required; every POST carries the session’s CSRF token in x-csrf-token (GET /admin/api/me).',
    },
    paths: paths as never,
  });
}
