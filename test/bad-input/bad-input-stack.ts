import { acceptPutEntries, PutRejection } from '../../shared/events/index.js';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { startConverter } from '../helpers/pipeline.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';

/** The users the generated requests name (test/bad-input/arbitraries.ts `token`). */
export const KNOWN_TOKENS = ['alice@example.org', 'bob@example.org'] as const;

export interface BadInputStack {
  env: TestEnv;
  gw: RunningGateway;
  /** Token → uuid of the registered users. */
  uuids: ReadonlyMap<string, string>;
  /** The identities (user, type, key, write_ts in seconds) a put of `list` stores when answered 200. */
  identities(user: string, list: unknown): string[];
  /**
   * Waits until the timeseries and the error timeseries together hold `expected` identities, then counts the
   * distinct ones; throws if either table holds an identity twice.
   */
  settledCount(expected: number): Promise<number>;
  stop(): Promise<void>;
}

/** A gateway and a converter on a private slice of the real servers, with the known users registered. */
export async function startBadInputStack(overrides: Record<string, string> = {}): Promise<BadInputStack> {
  const env = await createTestEnv(overrides);
  const gw = await startGateway(env);
  const converter: RunningConverter = await startConverter(env);
  const uuids = new Map<string, string>();
  for (const token of KNOWN_TOKENS) {
    uuids.set(token, (await gw.post('/profile/create', { user: token })).body.uuid as string);
  }
  const reader = createTimeseriesReader(env.cql);
  const errors = createErrorTimeseries(env.cql);
  /** The one key the converter renames (as e-mission's formatter does): identities compare under the stored name. */
  const storedKey = (key: string) => (key === 'background/activity' ? 'background/motion_activity' : key);
  /** Rows in both tables and the distinct identities among them: an identity may rightly be in both tables. */
  const tally = async () => {
    let rows = 0;
    const inTimeseries = new Set<string>();
    const inErrors = new Set<string>();
    for (const uuid of uuids.values()) {
      for (const json of await reader.find(uuid, null, 'metadata.write_ts', 0, 1e11)) {
        const { metadata } = JSON.parse(json) as { metadata: { type: string; key: string; write_ts: number } };
        rows += 1;
        inTimeseries.add(`${uuid}|${metadata.type}|${metadata.key}|${metadata.write_ts}`);
      }
    }
    for await (const letter of errors.all()) {
      rows += 1;
      inErrors.add(`${letter.user_id}|${letter.type}|${storedKey(letter.key)}|${letter.write_ts}`);
    }
    const identities = new Set([...inTimeseries, ...inErrors]);
    return { rows, perTable: inTimeseries.size + inErrors.size, identities: identities.size };
  };
  return {
    env,
    gw,
    uuids,
    identities(user, list) {
      const accepted = acceptPutEntries(list, 50_000);
      if (accepted instanceof PutRejection) return [];
      return accepted.map((e) => `${user}|${e.type}|${e.key}|${e.writeTs}`);
    },
    async settledCount(expected) {
      await waitFor(async () => ((await tally()).identities >= expected ? true : undefined), 120_000, 'the converter');
      // A moment more, so an entry stored twice would show.
      await new Promise((r) => setTimeout(r, 1_000));
      const { rows, perTable, identities } = await tally();
      if (rows !== perTable) throw new Error(`${rows - perTable} identities are stored twice in one table`);
      return identities;
    },
    async stop() {
      await converter.stop();
      await gw.close();
      await env.dispose();
    },
  };
}
