import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { createProgramConfigsTable } from '../../../shared/tables/index.js';
import { ConfigRefusal, parseDeploymentConfig } from '../../programs/domain/deployment-config.js';
import { opcodeProgram } from '../../programs/domain/opcode.js';
import { createProgramManager } from '../../programs/manage-programs.js';
import { newToken } from '../../programs/participant-tokens.js';
import { fail, type Session } from '../session.js';

/**
 * `itinera import --program <program> [--config <file>]`: the program an e-mission deployment's dump goes into. With
 * the deployment's configuration file, the program is created from it (or moved to it when its version is higher);
 * without, the program must exist. Returns the token of each imported user: the e-mission token when the uuids
 * mapping gives one (it must name the program, or nothing is imported), else a new random token of the program's
 * `default` subgroup: the participant is counted in the program, and nobody can derive the token from the uuid.
 * An account that exists under a dump's uuid is added to only when its token is the mapped one, or (unmapped) a
 * token of the program.
 */
export async function prepareProgramImport(
  s: Session,
  program: string,
  configFile: string | undefined,
  mapped: ReadonlyMap<string, string>,
): Promise<{ tokenOf: (uuid: string) => string; owns: (uuid: string, existingToken: string) => boolean }> {
  const elsewhere = [...mapped.values()].filter((token) => opcodeProgram(token) !== program);
  if (elsewhere.length > 0)
    fail(
      `${elsewhere.length} tokens of the uuids mapping do not name program ${program} (nrelop_${program}_…), e.g. ${elsewhere
        .slice(0, 3)
        .map((t) => JSON.stringify(t.slice(0, 40)))
        .join(', ')}: nothing was imported`,
      1,
    );
  const manager = createProgramManager(createProgramConfigsTable(s.cql));
  const current = await manager.list().then((rows) => rows.find((r) => r.program === program));
  if (configFile !== undefined) {
    const document = readFileSync(configFile, 'utf8');
    const config = parseDeploymentConfig(document);
    if (config instanceof ConfigRefusal) fail(`${configFile}: configuration refused: ${config.message}`, 1);
    const by = process.env['ITINERA_OPERATOR'] ?? userInfo().username;
    const change = { program, document, by, note: `imported with ${configFile}` };
    if (!current) await manager.create(change);
    else if (config.version > current.version) await manager.update(change);
    else if (
      config.version === current.version &&
      JSON.stringify(JSON.parse(current.document)) !== JSON.stringify(config)
    )
      fail(`program ${program} already has version ${config.version}, with another document: raise "version"`, 1);
  } else if (!current) fail(`no program ${program}: give its configuration with --config <file>`, 1);
  return {
    tokenOf: (uuid) => mapped.get(uuid) ?? newToken(program, 'default'),
    // A rerun finds the accounts it made, with the random tokens it gave them: any token of the program is theirs.
    owns: (uuid, existing) => (mapped.get(uuid) ?? existing) === existing && opcodeProgram(existing) === program,
  };
}
