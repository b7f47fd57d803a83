import { admitToken } from '../../../shared/programs/domain/admit-token.js';
import type { DeploymentConfig } from '../../../shared/programs/domain/deployment-config.js';
import { createParticipantTokens, newToken } from '../../../shared/programs/participant-tokens.js';
import type { ConsoleTokensTable, ProgramConfigRow } from '../../../shared/tables/index.js';
import type { ConsoleApiDeps } from '../api/console-routes.js';
import { createTokenIssuer } from './issue-tokens.js';

/** How many days of refused logins the Tokens page lists. */
const REFUSED_DAYS = 7;

/** The programs as saved, as the gateway's admission reads them (every document passed the schema when saved). */
function servedPrograms(rows: readonly ProgramConfigRow[]) {
  return new Map(
    rows.map((r) => [r.program, { program: r.program, config: JSON.parse(r.document) as DeploymentConfig }]),
  );
}

/** The Tokens page's actions: issue (by the gateway's own admission rule), list refusals, revoke, list revoked. */
export function createTokenActions(deps: {
  table: ConsoleTokensTable;
  /** The programs as saved now (not a gateway's copy seconds old: a program just created takes tokens at once). */
  programs: () => Promise<readonly ProgramConfigRow[]>;
}): ConsoleApiDeps['tokens'] {
  const { table } = deps;
  return {
    create: createTokenIssuer({
      admission: async ({ program, subgroup, tester }) =>
        admitToken(newToken(program, subgroup, tester), servedPrograms(await deps.programs())),
      generate: (request) => createParticipantTokens(request),
      record: (tokens, program, subgroup, by) => table.issue(tokens, program, subgroup, by),
    }),
    async refused() {
      return { rows: await table.listRefused(REFUSED_DAYS) };
    },
    revoke: (tokens, by, reason) => table.revoke(tokens, by, reason),
    async revoked() {
      return { rows: await table.listRevoked() };
    },
  };
}
