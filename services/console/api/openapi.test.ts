import { describe, expect, it } from 'vitest';
import { consoleRoutes, type ConsoleApiDeps } from './console-routes.js';
import { consoleOpenApi } from './openapi.js';

// The document is built from the route table alone: the handlers' dependencies are never called here.
const routes = consoleRoutes({} as ConsoleApiDeps);

describe('consoleOpenApi', () => {
  const doc = consoleOpenApi(routes, '1') as {
    openapi: string;
    paths: Record<string, Record<string, any>>;
    components?: { schemas?: Record<string, unknown> };
  };

  it('documents every route of the table, in OpenAPI path syntax, with its method', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const r of routes) {
      const path = r.path.replace(/:(\w+)/g, '{$1}');
      expect(doc.paths[path]?.[r.method], `${r.method} ${path}`).toBeDefined();
    }
    expect(Object.keys(doc.paths)).toContain('/admin/api/users/{userId}/days/{date}');
  });

  it('takes parameters and bodies from the schemas the router validates with', () => {
    const day = doc.paths['/admin/api/users/{userId}/days/{date}']!['get'];
    expect(day.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual([
      'path:date',
      'path:userId',
    ]);
    const participants = doc.paths['/admin/api/participants']!['get'];
    expect(participants.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'dir',
      'page',
      'q',
      'size',
      'sort',
    ]);
    const replay = doc.paths['/admin/api/dead-letters/replay']!['post'];
    expect(JSON.stringify(replay.requestBody)).toContain('ReplayRequest');
    expect(replay.parameters.some((p: { name: string }) => p.name === 'x-csrf-token')).toBe(true);
    expect(replay.description).toContain('Operator');
    expect(doc.components?.schemas).toHaveProperty('Participant');
    expect(doc.components?.schemas).toHaveProperty('Day');
  });
});
