import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { AppError } from '../../../shared/errors/index.js';
import {
  createConsoleTokensTable,
  createProgramConfigsTable,
  createUsersTable,
  type ProgramConfigRow,
} from '../../../shared/tables/index.js';
import { createProgramManager } from '../../../shared/programs/manage-programs.js';
import { createProgramParticipants } from '../../../shared/programs/program-participants.js';
import { fail, type Session } from '../session.js';

export interface ProgramArgs {
  action: string;
  program: string | undefined;
  file: string | undefined;
  labelOptions: string | undefined;
  note: string | undefined;
  /** Save an update even if it locks participants out of the program. */
  force?: boolean;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    return fail(`cannot read ${what} ${path}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
}

function summary(row: ProgramConfigRow): string {
  return `${row.program}\tversion ${row.version}\t${row.changedAt.toISOString()}\t${row.changedBy}${row.note ? `\t${row.note}` : ''}`;
}

/**
 * `itinera program create|update|show|list|history`: a program's configuration saved as a new version (phones
 * pick it up in their next put's answer), shown, listed or traced back. An update that would lock participants
 * out (a subgroup they are in removed, self-made tokens no longer taken) is refused unless `--force`.
 */
export async function program(s: Session, args: ProgramArgs): Promise<number> {
  const tokens = createConsoleTokensTable(s.cql);
  const listed = new Set(s.config.webserver.tokenList);
  const participants = createProgramParticipants(
    createUsersTable(s.cql, { cacheEntries: 1 }),
    async (token) => listed.has(token) || (await tokens.isIssued(token)),
  );
  const manager = createProgramManager(createProgramConfigsTable(s.cql), { participants });
  const name = () => args.program ?? fail(`program ${args.action} needs the program's name`);
  try {
    switch (args.action) {
      case 'create':
      case 'update': {
        const program = name();
        const file = args.file ?? fail(`program ${args.action} needs the configuration file (JSON)`);
        const change = {
          program,
          document: readText(file, 'the configuration'),
          by: process.env['ITINERA_OPERATOR'] ?? userInfo().username,
          ...(args.labelOptions === undefined
            ? {}
            : { labelOptions: readText(args.labelOptions, 'the label options') }),
          ...(args.note === undefined ? {} : { note: args.note }),
          force: args.force === true,
        };
        const row = args.action === 'create' ? await manager.create(change) : await manager.update(change);
        process.stdout.write(`saved ${summary(row)}\n`);
        return 0;
      }
      case 'show':
        process.stdout.write(`${JSON.stringify(JSON.parse((await manager.show(name())).document), null, 2)}\n`);
        return 0;
      case 'list':
        for (const row of await manager.list()) process.stdout.write(`${summary(row)}\n`);
        return 0;
      case 'history':
        for (const row of await manager.history(name())) process.stdout.write(`${summary(row)}\n`);
        return 0;
      default:
        return fail(`program needs one of create, update, show, list, history (not "${args.action}")`);
    }
  } catch (err) {
    // A refusal (a bad document, a version not raised, no such program) is the operator's to fix: say it plainly.
    if (err instanceof AppError && err.status < 500) return fail(err.message, 1);
    throw err;
  }
}
