import type { types } from 'cassandra-driver';
import type { Cql } from '../../../shared/cassandra/index.js';
import type { Finding } from './domain/alert-rules.js';
import { CHANNEL_NAMES, type ChannelName, type Delivery } from './domain/delivery.js';
import type { Episode } from './domain/episodes.js';

/*
 * Tables `console_alert_episodes` and `console_alert_digests` (schemas/cql/019), the console's alone. Each alert and
 * each digest is claimed by a lightweight transaction, so that of the consoles evaluating at once exactly one sends
 * it; the rest of what a row records (sent, failed, ended) is written plainly, by the console that holds it.
 */

const EPISODES = 'console_alert_episodes';
const DIGESTS = 'console_alert_digests';
const SENT_COLUMN: Record<ChannelName, string> = { webhook: 'webhook_sent_ts', email: 'email_sent_ts' };
const DELIVERY_COLUMNS = `attempt, sending_until, ${CHANNEL_NAMES.map((c) => SENT_COLUMN[c]).join(', ')}`;

/** What an attempt came to: the channels that took the message, and why the others did not. */
export interface Outcome {
  sent: readonly ChannelName[];
  at: number;
  error: string | null;
  /** When a channel failed, the earliest time the next attempt may be claimed; null: none is needed. */
  retryAt: number | null;
}

const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function deliveryOf(row: types.Row): Delivery {
  const sent: Delivery['sent'] = {};
  for (const c of CHANNEL_NAMES) {
    const at = numberOrNull(row[SENT_COLUMN[c]]);
    if (at !== null) sent[c] = at;
  }
  return { attempt: Number(row['attempt'] ?? 0), sendingUntil: numberOrNull(row['sending_until']), sent };
}

/**
 * The lease ends with the attempt: at once when every channel took the message, after the retry delay when one
 * failed; then whichever console claims the next attempt tries the failed channels again.
 */
function outcomeSet(outcome: Outcome): { set: string; params: unknown[] } {
  const columns = outcome.sent.map((c) => `${SENT_COLUMN[c]} = ?`);
  return {
    set: [...columns, 'sending_until = ?', 'last_error = ?'].join(', '),
    params: [...outcome.sent.map(() => outcome.at), outcome.retryAt, outcome.error],
  };
}

type EpisodeKey = Pick<Episode, 'userId' | 'rule' | 'since'>;
const keyParams = (e: EpisodeKey) => [e.userId, e.rule, e.since];
const WHERE_EPISODE = 'WHERE user_id = ? AND rule = ? AND since = ?';

export interface EpisodeTable {
  /** Every episode kept: the open ones and those ended lately. */
  all(): Promise<Episode[]>;
  /** Opens the episode unless a console did: true when this one did, and so sends its first attempt. */
  open(f: Finding, now: number, leaseUntil: number): Promise<boolean>;
  /** Claims the attempt after the one seen: true when this console won it, and so sends it. */
  claimRetry(e: Episode, leaseUntil: number): Promise<boolean>;
  recordOutcome(e: EpisodeKey, outcome: Outcome): Promise<void>;
  setEnded(e: EpisodeKey, endedAt: number | null): Promise<void>;
  forget(e: EpisodeKey): Promise<void>;
}

export function createEpisodeTable(cql: Cql): EpisodeTable {
  return {
    async all() {
      const episodes: Episode[] = [];
      const query =
        `SELECT user_id, rule, since, program, masked_token, day, opened_ts, ended_ts, last_error, ${DELIVERY_COLUMNS} ` +
        `FROM ${EPISODES}`;
      for await (const row of cql.iterate(query)) {
        episodes.push({
          userId: String(row['user_id']),
          rule: String(row['rule']),
          since: Number(row['since']),
          program: (row['program'] as string | null) ?? null,
          maskedToken: String(row['masked_token'] ?? ''),
          day: String(row['day'] ?? ''),
          openedAt: Number(row['opened_ts'] ?? 0),
          endedAt: numberOrNull(row['ended_ts']),
          lastError: (row['last_error'] as string | null) ?? null,
          ...deliveryOf(row),
        });
      }
      return episodes;
    },
    async open(f, now, leaseUntil) {
      const rs = await cql.conditional(
        `INSERT INTO ${EPISODES} (user_id, rule, since, program, masked_token, day, opened_ts, attempt, sending_until) ` +
          'VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?) IF NOT EXISTS',
        [f.userId, f.rule, f.since, f.program, f.maskedToken, f.day, now, leaseUntil],
      );
      return rs.wasApplied();
    },
    async claimRetry(e, leaseUntil) {
      const rs = await cql.conditional(
        `UPDATE ${EPISODES} SET attempt = ?, sending_until = ? ${WHERE_EPISODE} IF attempt = ?`,
        [e.attempt + 1, leaseUntil, ...keyParams(e), e.attempt],
      );
      return rs.wasApplied();
    },
    async recordOutcome(e, outcome) {
      const { set, params } = outcomeSet(outcome);
      await cql.write(`UPDATE ${EPISODES} SET ${set} ${WHERE_EPISODE}`, [...params, ...keyParams(e)]);
    },
    async setEnded(e, endedAt) {
      await cql.write(`UPDATE ${EPISODES} SET ended_ts = ? ${WHERE_EPISODE}`, [endedAt, ...keyParams(e)]);
    },
    async forget(e) {
      await cql.write(`DELETE FROM ${EPISODES} ${WHERE_EPISODE}`, keyParams(e));
    },
  };
}

export interface DigestTable {
  /** The day's digests, by program. */
  ofDay(day: string): Promise<Map<string, Delivery>>;
  /** Claims the day's digest of `program` unless a console did: true when this one did, and so sends it. */
  claim(day: string, program: string, now: number, leaseUntil: number): Promise<boolean>;
  claimRetry(day: string, program: string, attempt: number, leaseUntil: number): Promise<boolean>;
  recordOutcome(day: string, program: string, outcome: Outcome): Promise<void>;
}

export function createDigestTable(cql: Cql): DigestTable {
  return {
    async ofDay(day) {
      const rs = await cql.read(`SELECT program, ${DELIVERY_COLUMNS} FROM ${DIGESTS} WHERE day = ?`, [day]);
      return new Map(rs.rows.map((row) => [String(row['program']), deliveryOf(row)]));
    },
    async claim(day, program, now, leaseUntil) {
      const rs = await cql.conditional(
        `INSERT INTO ${DIGESTS} (day, program, claimed_ts, attempt, sending_until) VALUES (?, ?, ?, 1, ?) IF NOT EXISTS`,
        [day, program, now, leaseUntil],
      );
      return rs.wasApplied();
    },
    async claimRetry(day, program, attempt, leaseUntil) {
      const rs = await cql.conditional(
        `UPDATE ${DIGESTS} SET attempt = ?, sending_until = ? WHERE day = ? AND program = ? IF attempt = ?`,
        [attempt + 1, leaseUntil, day, program, attempt],
      );
      return rs.wasApplied();
    },
    async recordOutcome(day, program, outcome) {
      const { set, params } = outcomeSet(outcome);
      await cql.write(`UPDATE ${DIGESTS} SET ${set} WHERE day = ? AND program = ?`, [...params, day, program]);
    },
  };
}
