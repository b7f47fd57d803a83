import type { Cql } from '../../../shared/cassandra/index.js';

/**
 * Sessions ended by a logout before their cookie expired. The cookie is signed, not stored, so a copy of it stays
 * valid until it expires unless the console remembers that its session ended: that is this list. A session lives at
 * most 8 hours, so an ended one is remembered that long and no longer.
 */
export interface EndedSessions {
  end(sessionId: string): Promise<void>;
  hasEnded(sessionId: string): Promise<boolean>;
}

/** What the list keeps an ended session for: a cookie's whole life. */
export const ENDED_SESSION_TTL_S = 8 * 60 * 60;

/**
 * Table `console_ended_sessions` (schemas/cql/016), so that every console replica, and a console restarted with the
 * same session keys, refuses the copy of a cookie logged out anywhere. Read once per request behind the gate: one
 * partition read by key. A session seen ended is remembered in the process, since it never starts again.
 */
export function createCassandraEndedSessions(cql: Cql): EndedSessions {
  const known = new Set<string>();
  return {
    async end(sessionId) {
      known.add(sessionId);
      await cql.write('INSERT INTO console_ended_sessions (session_id, ended_at) VALUES (?, ?) USING TTL ?', [
        sessionId,
        new Date(),
        ENDED_SESSION_TTL_S,
      ]);
    },
    async hasEnded(sessionId) {
      if (known.has(sessionId)) return true;
      const rs = await cql.read('SELECT session_id FROM console_ended_sessions WHERE session_id = ?', [sessionId]);
      if (rs.rows.length === 0) return false;
      known.add(sessionId);
      return true;
    },
  };
}

/** For a console with no Cassandra (its tests): the list lives as long as the process. */
export function createEndedSessionsInMemory(): EndedSessions {
  const ended = new Set<string>();
  return {
    end: async (sessionId) => void ended.add(sessionId),
    hasEnded: async (sessionId) => ended.has(sessionId),
  };
}
