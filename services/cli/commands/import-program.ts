import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { createConsoleTokensTable, createProgramConfigsTable, createUsersTable } from '../../../shared/tables/index.js';
import {
  ConfigRefusal,
  parseDeploymentConfig,
  phonesMakeTokens,
  type DeploymentConfig,
} from '../../../shared/programs/domain/deployment-config.js';
import { opcodeMembership, opcodeProgram } from '../../../shared/programs/domain/opcode.js';
import { createProgramManager } from '../../../shared/programs/manage-programs.js';
import { newToken } from '../../../shared/programs/participant-tokens.js';
import { createProgramParticipants } from '../../../shared/programs/program-participants.js';
import { fail, type Session } from '../session.js';

/**
 * `itinera import --program <program> [--config <file>]`: the program an e-mission deployment's dump goes into. With
 * the deployment's configuration file, the program is created from it (or moved to it when its version is higher);
 * without, the program must exist. Returns the token of each imported user: the e-mission token when the uuids
 * mapping gives one (it must name the program, or nothing is imported), else a new random token of the program's
 * `default` subgroup: the participant is counted in the program, and nobody can derive the token from the uuid.
 * An account that exists under a dump's uuid is added to only when its token is the mapped one, or (unmapped) a
 * token of the program. In a program that admits only issued tokens, each imported user's token is recorded as issued
 * (by the operator running the import), so the phones moved over keep syncing.
 */
export async function prepareProgramImport(
  s: Session,
  program: string,
  configFile: string | undefined,
  mapped: ReadonlyMap<string, string>,
): Promise<{
  tokenOf: (uuid: string) => string;
  owns: (uuid: string, existingToken: string) => boolean;
  /** Called with each imported user's token once their account exists. */
  admitted: (token: string) => Promise<void>;
}> {
  const elsewhere = [...mapped.values()].filter((token) => opcodeProgram(token) !== program);
  if (elsewhere.length > 0)
    fail(
      `${elsewhere.length} tokens of the uuids mapping do not name program ${program} (nrelop_${program}_…), e.g. ${elsewhere
        .slice(0, 3)
        .map((t) => JSON.stringify(t.slice(0, 40)))
        .join(', ')}: nothing was imported`,
      1,
    );
  const issuedTokens = createConsoleTokensTable(s.cql);
  const listed = new Set(s.config.webserver.tokenList);
  const manager = createProgramManager(createProgramConfigsTable(s.cql), {
    participants: createProgramParticipants(
      createUsersTable(s.cql, { cacheEntries: 1 }),
      async (token) => listed.has(token) || (await issuedTokens.isIssued(token)),
    ),
  });
  const by = process.env['ITINERA_OPERATOR'] ?? userInfo().username;
  let served: DeploymentConfig | undefined;
  const current = await manager.list().then((rows) => rows.find((r) => r.program === program));
  if (configFile !== undefined) {
    const document = readFileSync(configFile, 'utf8');
    const config = parseDeploymentConfig(document);
    if (config instanceof ConfigRefusal) fail(`${configFile}: configuration refused: ${config.message}`, 1);
    const change = { program, document, by, note: `imported with ${configFile}` };
    if (!current) await manager.create(change);
    else if (config.version > current.version) await manager.update(change);
    else if (config.version === current.version && canonical(JSON.parse(current.document)) !== canonical(config))
      fail(`program ${program} already has version ${config.version}, with another document: raise "version"`, 1);
    served = parseConfigOrFail(await manager.show(program).then((row) => row.document), program);
  } else if (!current) fail(`no program ${program}: give its configuration with --config <file>`, 1);
  else served = parseConfigOrFail(current.document, program);
  const config = served;
  const issuedOnly = !phonesMakeTokens(config);
  return {
    tokenOf: (uuid) => mapped.get(uuid) ?? newToken(program, 'default'),
    // A rerun finds the accounts it made, with the random tokens it gave them: any token of the program is theirs.
    owns: (uuid, existing) => (mapped.get(uuid) ?? existing) === existing && opcodeProgram(existing) === program,
    admitted: async (token) => {
      if (!issuedOnly) return;
      const membership = opcodeMembership(token, config);
      await issuedTokens.issue([token], program, typeof membership === 'string' ? 'default' : membership.subgroup, by);
    },
  };
}

function parseConfigOrFail(document: string, program: string): DeploymentConfig {
  const config = parseDeploymentConfig(document);
  if (config instanceof ConfigRefusal)
    fail(`program ${program}: its stored configuration does not read: ${config.message}`, 1);
  return config;
}

/** JSON with every object's keys in order: two documents that differ only in key order are the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
