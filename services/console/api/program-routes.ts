import { z } from 'zod';
import { NotFoundError } from '../../../shared/errors/index.js';
import type { Logger } from '../../../shared/logger/index.js';
import { versionView, type ConsolePrograms } from '../programs/console-programs.js';
import { inScope, type ProgramScope } from '../scope/program-scope.js';
import { who } from './caller.js';
import { route, type ConsoleRoute } from './route-table.js';
import * as s from './schemas.js';

export interface ProgramRouteDeps {
  programs: ConsolePrograms;
  audit: Logger;
}

/** A new version, `force` saving it even if it locks participants out of the program. */
const ProgramUpdateRequest = s.ProgramVersionRequest.extend({ force: z.boolean().optional() }).meta({
  id: 'ProgramUpdateRequest',
});

/** Another program is answered as a program that does not exist, in the programs' manager's words. */
function assertVisibleProgram(scope: ProgramScope, program: string): void {
  if (!inScope(scope, program)) throw new NotFoundError(`no program "${program}"`);
}

/**
 * The Programs page's endpoints: the programs' configurations, listed, shown with their history, created (whole-
 * deployment operators) and given a new version (those and the program's admins), with the rules of
 * `npx itinera program`: a document that fails the schema is a 400, a version not raised a 409, and so is a version
 * that would lock participants out, unless the body says `force`.
 */
export function programRoutes(d: ProgramRouteDeps): ConsoleRoute[] {
  return [
    route({
      method: 'get',
      path: '/admin/api/programs',
      summary: 'The programs with their current version',
      programScoped: true,
      response: s.ProgramList,
      handle: async ({ scope }) => {
        const rows = await d.programs.list();
        return { programs: rows.filter((r) => inScope(scope, r.program)).map(versionView) };
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/programs/:program',
      summary: 'A program’s current configuration and its history',
      programScoped: true,
      params: s.ProgramParams,
      response: s.ProgramDetail,
      handle: async ({ params, scope }) => {
        assertVisibleProgram(scope, params.program);
        const [current, history] = await Promise.all([
          d.programs.show(params.program),
          d.programs.history(params.program),
        ]);
        return { ...versionView(current), document: current.document, history: history.map(versionView) };
      },
    }),
    route({
      method: 'post',
      path: '/admin/api/programs',
      summary: 'Create a program with its first configuration',
      operator: true,
      body: s.ProgramCreateRequest,
      response: s.ProgramVersion,
      handle: async ({ body, ctx }) => {
        const row = await d.programs.create({ ...body, by: who(ctx) });
        d.audit.info('Program created', { by: who(ctx), program: row.program, version: row.version });
        return versionView(row);
      },
    }),
    route({
      method: 'post',
      path: '/admin/api/programs/:program/versions',
      summary: 'Save a new version of a program’s configuration (its version must be above the current one)',
      operator: true,
      programScoped: true,
      params: s.ProgramParams,
      body: ProgramUpdateRequest,
      response: s.ProgramVersion,
      handle: async ({ params, body, scope, ctx }) => {
        assertVisibleProgram(scope, params.program);
        const row = await d.programs.update({ ...body, program: params.program, by: who(ctx) });
        d.audit.info('Program updated', { by: who(ctx), program: row.program, version: row.version });
        return versionView(row);
      },
    }),
  ];
}
