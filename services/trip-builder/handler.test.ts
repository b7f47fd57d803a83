import type { EachBatchPayload } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import cassandra from 'cassandra-driver';
import { DependencyUnavailableError } from '../../shared/errors/index.js';
import { workerEachBatch } from '../../shared/kafka/index.js';
import type { Logger } from '../../shared/logger/index.js';
import { isReplayable, type DeadLetter } from '../../shared/timeseries/index.js';
import { createTripBatchHandler, type TripBuilderDeps } from './handler.js';

const BAD = '00000000-0000-0000-0000-00000000000b';
const GOOD = '00000000-0000-0000-0000-00000000000a';

function setup(failure: Error, refuseFirstInsert?: Error) {
  const inserted: DeadLetter[] = [];
  let refusal = refuseFirstInsert;
  const rebuilt: string[] = [];
  const logged: unknown[] = [];
  const deps = {
    codec: { decode: async (b: Buffer) => JSON.parse(b.toString()) },
    logger: { debug: () => undefined, error: (...args: unknown[]) => logged.push(args) } as unknown as Logger,
    errors: {
      insert: async (l: DeadLetter) => {
        const answer = refusal;
        refusal = undefined;
        if (answer) throw answer;
        inserted.push(l);
      },
    },
    now: () => 1700000000,
    rebuild: async (_deps: unknown, userId: string) => {
      if (userId === BAD) throw failure;
      rebuilt.push(userId);
      return { trips: 1, days: [] };
    },
  } as unknown as TripBuilderDeps;
  const resolveOffset = vi.fn();
  const payload = {
    batch: {
      topic: 'timeseries',
      partition: 3,
      messages: [BAD, GOOD].map((user, i) => ({
        offset: String(10 + i),
        value: Buffer.from(
          JSON.stringify({ user_id: user, key: 'background/filtered_location', data_ts: 1600000000 + i }),
        ),
      })),
    },
    resolveOffset,
    heartbeat: async () => undefined,
    commitOffsetsIfNecessary: async () => undefined,
    isRunning: () => true,
    isStale: () => false,
  } as unknown as EachBatchPayload;
  return {
    handler: workerEachBatch(createTripBatchHandler(deps), { retry: QUICK_RETRY }),
    payload,
    inserted,
    rebuilt,
    logged,
    resolveOffset,
  };
}

/** One more try in place, at once: the batch still fails as a whole when the outage lasts. */
const QUICK_RETRY = { retries: 1, firstDelayMs: 1, maxDelayMs: 1 };

describe('trip batch handler', () => {
  it('When one user’s rebuild throws for a reason that is not an outage, then it is recorded and the others are rebuilt and committed', async () => {
    const t = setup(new RangeError('Invalid time value'));
    await t.handler(t.payload);
    expect(t.rebuilt).toEqual([GOOD]);
    expect(t.inserted).toEqual([
      expect.objectContaining({
        user_id: BAD,
        key: 'pipeline/trip-builder',
        write_ts: 1600000000,
        source_partition: 3,
        source_offset: 10,
        reason: 'trip rebuild failed: RangeError: Invalid time value',
      }),
    ]);
    expect(t.logged).toHaveLength(1);
    expect(t.resolveOffset).toHaveBeenCalledWith('11');
  });

  it('When the error table refuses the failure row for a reason that is not an outage, then a reduced row is stored and the batch is still committed', async () => {
    const tooBig = new cassandra.errors.ResponseError(
      cassandra.types.responseErrorCodes.invalid,
      'Request is too big: length 20971664 exceeds maximum allowed length 16777216',
    );
    const t = setup(new RangeError('Invalid time value'), tooBig);
    await t.handler(t.payload);
    expect(t.rebuilt).toEqual([GOOD]);
    expect(t.inserted).toEqual([
      expect.objectContaining({
        user_id: BAD,
        key: 'pipeline/trip-builder',
        write_ts: 1600000000,
        metadata_json: '{}',
        reason: expect.stringMatching(/^payload omitted: .*trip rebuild failed: RangeError: Invalid time value$/),
      }),
    ]);
    expect(isReplayable(t.inserted[0]!)).toBe(false);
    expect(t.resolveOffset).toHaveBeenCalledWith('11');
  });

  it('When a rebuild meets an outage, then the batch fails once tried again (kafkajs retries it) and nothing is recorded', async () => {
    const t = setup(new DependencyUnavailableError('Cassandra did not answer'));
    await expect(t.handler(t.payload)).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(t.inserted).toEqual([]);
    expect(t.resolveOffset).not.toHaveBeenCalled();
  });
});
