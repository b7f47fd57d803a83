import type { z } from 'zod';
import type { ProgramManager } from '../../../shared/programs/manage-programs.js';
import type { ProgramConfigRow } from '../../../shared/tables/index.js';
import type { ProgramVersion } from '../api/schemas.js';

/**
 * What the console does with programs: the operators' actions `npx itinera program` has too (shared/programs,
 * wired in compose.ts), with the same refusals: a bad document or name is a ValidationError (400), a program that
 * exists, a version not raised or a version that would lock participants out (unless forced) a ConflictError (409),
 * an unknown program a NotFoundError (404).
 */
export type ConsolePrograms = ProgramManager;

/** A stored version as the API answers it (times in Unix seconds, as everywhere in the console). */
export function versionView(row: ProgramConfigRow): z.infer<typeof ProgramVersion> {
  return {
    program: row.program,
    version: row.version,
    changedAt: row.changedAt.getTime() / 1000,
    changedBy: row.changedBy,
    note: row.note,
  };
}
