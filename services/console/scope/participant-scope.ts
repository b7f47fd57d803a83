import { NotFoundError } from '../../../shared/errors/index.js';
import { inScope, type ProgramScope } from './program-scope.js';

/** A participant's program (null: the implicit program). */
export interface Membership {
  program: string | null;
}

/** Which user ids a list may show; undefined: all of them (a deployment-wide caller, nothing to filter). */
export type UserFilter = ((userId: string) => boolean) | undefined;

/** Which participants a caller sees, from the program each one's token names. */
export interface ParticipantScope {
  /**
   * The filter of lists (dead letters, figures, behind users) for a caller: the participants the index knows in
   * the scope. A participant registered since the index's last refresh shows from its next one, never in another
   * program.
   */
  filter(scope: ProgramScope): UserFilter;
  /**
   * Refuses (404) a participant who does not exist or is outside the scope, with the same answer for both: a
   * program's admin cannot tell another program's participant from a uuid nobody has.
   */
  assertVisible(scope: ProgramScope, userId: string): Promise<void>;
}

export function createParticipantScope(deps: {
  /** The participant's program if the index knows them, else undefined. */
  indexed(userId: string): Membership | undefined;
  /** The same from the users table: a participant registered since the index's last refresh. */
  lookup(userId: string): Promise<Membership | undefined>;
}): ParticipantScope {
  return {
    filter(scope) {
      if (scope === undefined) return undefined;
      return (userId) => {
        const m = deps.indexed(userId);
        return m !== undefined && inScope(scope, m.program);
      };
    },
    async assertVisible(scope, userId) {
      const m = deps.indexed(userId) ?? (await deps.lookup(userId));
      if (m === undefined || !inScope(scope, m.program)) throw new NotFoundError(`no participant ${userId}`);
    },
  };
}
