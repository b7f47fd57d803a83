import type { UserList } from '../tables/index.js';
import { cohortOf } from './domain/opcode.js';

/** Issued tokens are looked up this many at a time: a program of thousands is read in seconds, not minutes. */
const ISSUED_AT_ONCE = 32;

/** Who is in a program, for the programs' manager to count whom a new version would lock out. */
export interface ProgramParticipants {
  /** The tokens of the program's participants (testers included), from the users' list. */
  tokens(program: string): Promise<string[]>;
  /** Those of `tokens` an operator issued (console Tokens page, or the deployment's token list). */
  issued(tokens: readonly string[]): Promise<Set<string>>;
}

/**
 * The participants of a program as the aggregates know them (program-cohorts.ts): every registered user whose token
 * names it. A version is saved rarely, so the users' list is read whole each time, never cached.
 */
export function createProgramParticipants(
  users: UserList,
  isIssued: (token: string) => Promise<boolean>,
): ProgramParticipants {
  return {
    async tokens(program) {
      const tokens: string[] = [];
      for await (const user of users.all({ pageSize: 5_000 }))
        if (cohortOf(user.userEmail).program === program) tokens.push(user.userEmail);
      return tokens;
    },
    async issued(tokens) {
      const issued = new Set<string>();
      for (let i = 0; i < tokens.length; i += ISSUED_AT_ONCE) {
        const batch = tokens.slice(i, i + ISSUED_AT_ONCE);
        const answers = await Promise.all(batch.map(isIssued));
        batch.forEach((token, j) => answers[j] && issued.add(token));
      }
      return issued;
    },
  };
}
