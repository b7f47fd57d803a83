import type { UserList } from '../tables/index.js';
import { cohortOf } from './domain/opcode.js';

/** Whom an aggregate may count: the participants of the caller's program. */
export type CohortFilter = (userId: string) => boolean;

/**
 * Which program each participant belongs to, for aggregates that must count only the caller's program: the users'
 * list, read again at most every `refreshMs`. A participant registered since the last read is in no cohort until the
 * next one (left out, never counted in another program).
 */
export interface ProgramCohorts {
  /**
   * The members of `program` (undefined: the implicit program, every participant whose token names no program),
   * testers (`_test` tokens) only when `includeTesters`.
   */
  filter(program: string | undefined, options: { includeTesters: boolean }): Promise<CohortFilter>;
}

interface Membership {
  program: string | undefined;
  tester: boolean;
}

export function createProgramCohorts(
  users: UserList,
  { refreshMs = 30_000, now = Date.now }: { refreshMs?: number; now?: () => number } = {},
): ProgramCohorts {
  let members: Map<string, Membership> | undefined;
  let readAt = 0;
  let reading: Promise<Map<string, Membership>> | undefined;

  async function read(): Promise<Map<string, Membership>> {
    const next = new Map<string, Membership>();
    for await (const user of users.all({ pageSize: 5_000 })) next.set(user.uuid, cohortOf(user.userEmail));
    members = next;
    readAt = now();
    return next;
  }

  async function current(): Promise<Map<string, Membership>> {
    if (members && now() - readAt < refreshMs) return members;
    reading ??= read().finally(() => {
      reading = undefined;
    });
    // Every caller waits for the read: an aggregate counted from a stale list could miss a deletion's removal.
    return reading;
  }

  return {
    async filter(program, { includeTesters }) {
      const map = await current();
      return (userId) => {
        const m = map.get(userId);
        return m !== undefined && m.program === program && (includeTesters || !m.tester);
      };
    },
  };
}
