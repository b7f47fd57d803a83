import type { Cql, Statement } from '../cassandra/index.js';
import { forEachBounded } from '../runtime/for-each-bounded.js';

/**
 * Table `participant_days` (schemas/cql/020-participant-days.cql): what each participant's phone sensed on each of
 * its local days, by quarter-hour of local time. Written by the converter; read by the console and the export, which
 * score the day (shared/quality/day-score.ts).
 */
const TABLE = 'participant_days';
const COLUMNS = 'local_date, data_quarters, location_quarters, motion_quarters, states, battery_pct, battery_ts';

/** Quarter-hours in a local day (a day with a clock change is cut as any other: its extra or missing hour folds). */
export const QUARTERS_PER_DAY = 96;

/** What one batch saw of one participant's local day: added to what earlier batches saw. */
export interface DaySensing {
  userId: string;
  /** The phone's local date, YYYY-MM-DD. */
  localDate: string;
  dataQuarters: readonly number[];
  locationQuarters: readonly number[];
  motionQuarters: readonly number[];
  /** [seconds since the local midnight, state reached] of each transition. */
  states: ReadonlyArray<readonly [number, number]>;
  battery?: { pct: number; ts: number };
}

/** One participant's day as stored: the union of every batch's DaySensing. */
export interface SensedDay {
  localDate: string;
  dataQuarters: number[];
  locationQuarters: number[];
  motionQuarters: number[];
  /** [seconds since the local midnight, state reached], earliest first. */
  states: Array<[number, number]>;
  battery: { pct: number; ts: number } | null;
}

export interface ParticipantDaysTable {
  /** Adds what a batch saw; one request per participant. */
  record(days: readonly DaySensing[]): Promise<void>;
  /** The participant's days from `fromDate` to `toDate` (both included, YYYY-MM-DD), oldest first. */
  read(userId: string, fromDate: string, toDate: string): Promise<SensedDay[]>;
  /** The participant's first and latest local dates with anything sensed, or undefined: none yet. */
  span(userId: string): Promise<{ first: string; latest: string } | undefined>;
  removeUser(userId: string): Promise<void>;
}

const WRITES_AT_ONCE = 16;
/**
 * Microseconds, as Cassandra's write timestamps: the newest reading wins. Never later than now: a cell stamped in the
 * future would outlive the deletion of the participant.
 */
const micros = (seconds: number) => Math.round(Math.min(seconds, Date.now() / 1000) * 1e6);

/** The quarter-hour sets: each field of a day and its column. */
const QUARTER_SETS = [
  ['dataQuarters', 'data_quarters'],
  ['locationQuarters', 'location_quarters'],
  ['motionQuarters', 'motion_quarters'],
] as const;

const ADD_SENSED =
  `UPDATE ${TABLE} SET ${QUARTER_SETS.map(([, c]) => `${c} = ${c} + ?`).join(', ')}, states = states + ? ` +
  `WHERE user_id = ? AND local_date = ?`;

function statementsOf(d: DaySensing): Statement[] {
  const key = [d.userId, d.localDate];
  const sets = QUARTER_SETS.map(([field]) => [...d[field]]);
  // A map parameter is an object, so its double keys go as strings (the driver reads numeric strings as numbers).
  const states = Object.fromEntries(d.states.map(([second, state]) => [String(second), state]));
  const writes: Statement[] = [{ query: ADD_SENSED, params: [...sets, states, ...key] }];
  if (d.battery)
    writes.push({
      query: `UPDATE ${TABLE} USING TIMESTAMP ? SET battery_pct = ?, battery_ts = ? WHERE user_id = ? AND local_date = ?`,
      params: [micros(d.battery.ts), d.battery.pct, d.battery.ts, ...key],
    });
  return writes;
}

const numbers = (value: unknown): number[] =>
  value instanceof Set || Array.isArray(value)
    ? [...(value as Iterable<unknown>)].map(Number).sort((a, b) => a - b)
    : [];

function statesOf(value: unknown): Array<[number, number]> {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value as Record<string, unknown>)
    .map(([second, state]): [number, number] => [Number(second), Number(state)])
    .sort((a, b) => a[0] - b[0]);
}

function toDay(r: Record<string, unknown>): SensedDay {
  const pct = r['battery_pct'];
  const ts = r['battery_ts'];
  const sets = Object.fromEntries(QUARTER_SETS.map(([field, column]) => [field, numbers(r[column])])) as Pick<
    SensedDay,
    (typeof QUARTER_SETS)[number][0]
  >;
  return {
    localDate: String(r['local_date']),
    ...sets,
    states: statesOf(r['states']),
    battery: typeof pct === 'number' && typeof ts === 'number' ? { pct, ts } : null,
  };
}

export function createParticipantDaysTable(cql: Cql): ParticipantDaysTable {
  return {
    async record(days) {
      const byUser = new Map<string, Statement[]>();
      for (const d of days) {
        const statements = byUser.get(d.userId) ?? [];
        statements.push(...statementsOf(d));
        byUser.set(d.userId, statements);
      }
      await forEachBounded([...byUser.values()], WRITES_AT_ONCE, async (statements) => {
        // One partition, one request: the batch's every day of the participant at once.
        if (statements.length === 1) await cql.write(statements[0]!.query, statements[0]!.params);
        else await cql.writeBatch(statements);
      });
    },
    async read(userId, fromDate, toDate) {
      const rs = await cql.read(
        `SELECT ${COLUMNS} FROM ${TABLE} WHERE user_id = ? AND local_date >= ? AND local_date <= ?`,
        [userId, fromDate, toDate],
      );
      return rs.rows.map(toDay).reverse();
    },
    async span(userId) {
      // One row each way along the table's clustering order (newest first).
      const at = async (order: 'ASC' | 'DESC') => {
        const rs = await cql.read(
          `SELECT local_date FROM ${TABLE} WHERE user_id = ? ORDER BY local_date ${order} LIMIT 1`,
          [userId],
        );
        const date = rs.rows[0]?.['local_date'];
        return typeof date === 'string' ? date : undefined;
      };
      const [first, latest] = await Promise.all([at('ASC'), at('DESC')]);
      return first === undefined || latest === undefined ? undefined : { first, latest };
    },
    async removeUser(userId) {
      // Above every cell's timestamp (never in the future), so nothing survives.
      await cql.write(`DELETE FROM ${TABLE} USING TIMESTAMP ? WHERE user_id = ?`, [
        micros(Date.now() / 1000) + 1,
        userId,
      ]);
    },
  };
}
