import { type AggregateCallAuth, type AuthMethod, isLoopbackHost } from '../../../shared/config/index.js';

/**
 * Who an aggregate may count, against differencing by made-up accounts.
 *
 * k-suppression counts accounts, and an account costs whatever registering costs. Five accounts of one person, each
 * with trips the person knows exactly, lift a bin holding one other participant over k = 5; the published total
 * minus their own trips is that participant's figure, to the metre. Two rules make this attack expensive:
 *
 * - An account counts toward a trip's aggregate only if it was created at least `minHistoryDays` before the trip
 *   started. The creation time is the server's own stamp (`users_by_uuid.create_ts`), which no phone can set, while
 *   trips carry phone times: history measured from the first trip could be backdated with one put. Accounts made
 *   today reach no bin before `minHistoryDays` from now, so differencing needs accounts made and kept that long
 *   before the victim travels, not an afternoon's work; and past bins can never be filled with new accounts.
 * - Where the token is the e-mail (auth `skip`) and the gateway listens beyond loopback, anyone anywhere makes
 *   accounts by naming e-mails: aggregates are not served at all there (aggregateCallAuthInForce).
 *
 * Neither bounds what a patient attacker learns: accounts kept `minHistoryDays` still count. docs/security.md says
 * why neither rounding nor noise was added to close that.
 */

const DAY_S = 86_400;

/**
 * The history rule in force for an aggregate withheld below `minUsers` people. k = 1 publishes each person's
 * figures outright (an operator's choice, as in the trip builder's single-user tests), so there is nothing left for
 * differencing to uncover and no account is left out; 0 days turns the rule off.
 */
export function historyDaysInForce(minUsers: number, minHistoryDays: number): number {
  return minUsers <= 1 ? 0 : minHistoryDays;
}

/**
 * Whether a trip (or section) starting at `startTs` counts toward an aggregate: its account was created, by the
 * server's clock, at least `minHistoryDays` before. An account that is gone (`createdS` undefined) counts nowhere.
 */
export function countsTowardAggregate(createdS: number | undefined, startTs: number, minHistoryDays: number): boolean {
  if (minHistoryDays <= 0) return true;
  return createdS !== undefined && createdS <= startTs - minHistoryDays * DAY_S;
}

/**
 * `aggregate_call_auth` as it applies: `never` where tokens are e-mails (auth `skip`) and the gateway is reachable
 * from other machines, whatever the configuration says. There every account is free to anyone on the network, so
 * no aggregate is safe to serve; on loopback (the development server and its emulators) only this machine can
 * make accounts. This is the same line the deletion and export routes draw (identify-user.ts requireRealAuth).
 */
export function aggregateCallAuthInForce(
  auth: AuthMethod,
  host: string,
  configured: AggregateCallAuth,
): AggregateCallAuth {
  return auth === 'skip' && !isLoopbackHost(host) ? 'never' : configured;
}

/** A row an aggregate sums: whose it is and when it started. */
export interface AccountRow {
  userId: string;
  startTs: number;
}

export interface HistoryGate<T extends AccountRow> {
  /** Hands `row` on at once when its account's age is known, else once it is; drops it if the account is too new. */
  offer(row: T): void;
  /** Waits for the account look-ups still running and hands on the rows that waited for them. */
  drain(): Promise<void>;
}

/**
 * The history rule over a stream of rows, keeping the scan streaming: each account is looked up once per gate, the
 * rows of an account whose look-up is running wait (only those), and `pass` sees every row that counts, in arrival
 * order per account. At most `concurrency` look-ups run at once. A failed look-up fails `drain`: an aggregate
 * counted without knowing who may be counted is not answered.
 */
export function createHistoryGate<T extends AccountRow>(
  minHistoryDays: number,
  createdAt: (userId: string) => Promise<number | undefined>,
  pass: (row: T) => void,
  { concurrency = 16 }: { concurrency?: number } = {},
): HistoryGate<T> {
  if (minHistoryDays <= 0) return { offer: pass, drain: async () => undefined };
  const known = new Map<string, number | undefined>();
  const waiting = new Map<string, T[]>();
  const queue: string[] = [];
  let running = 0;
  let failure: unknown;
  let idle: (() => void) | undefined;

  const decide = (row: T, createdS: number | undefined) => {
    if (countsTowardAggregate(createdS, row.startTs, minHistoryDays)) pass(row);
  };

  function next(): void {
    while (running < concurrency && queue.length > 0) {
      const userId = queue.shift()!;
      running += 1;
      createdAt(userId)
        .then(
          (createdS) => {
            known.set(userId, createdS);
            try {
              for (const row of waiting.get(userId) ?? []) decide(row, createdS);
            } catch (err) {
              failure ??= err;
            }
          },
          (err: unknown) => {
            failure ??= err;
          },
        )
        .finally(() => {
          waiting.delete(userId);
          running -= 1;
          next();
          if (running === 0 && queue.length === 0) idle?.();
        });
    }
  }

  return {
    offer(row) {
      if (known.has(row.userId)) return decide(row, known.get(row.userId));
      const rows = waiting.get(row.userId);
      if (rows) return void rows.push(row);
      waiting.set(row.userId, [row]);
      queue.push(row.userId);
      next();
    },
    async drain() {
      if (running > 0 || queue.length > 0) await new Promise<void>((resolve) => (idle = resolve));
      if (failure !== undefined) throw failure;
    },
  };
}
