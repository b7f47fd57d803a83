import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../../../shared/errors/index.js';
import { createTimeseriesReader, type StoredEntry } from '../../../shared/timeseries/index.js';
import { createTestEnv, type TestEnv } from '../../../test/helpers/test-env.js';
import { entryObjectId } from '../../../shared/ids/entry-identity.js';
import { createTimeseriesWriter } from './cassandra-timeseries-writer.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.dispose();
});

const DAY_START = 1617919200;

function entry(userId: string, i: number, payloadBytes: number): StoredEntry {
  const writeTs = DAY_START + i;
  const oid = entryObjectId(userId, 'sensor-data', 'background/battery', writeTs);
  return {
    userId,
    key: 'background/battery',
    type: 'sensor-data',
    writeTs,
    dataTs: writeTs,
    oid,
    entryJson: JSON.stringify({
      _id: { $oid: oid },
      metadata: { write_ts: writeTs },
      data: { ts: writeTs, blob: 'x'.repeat(payloadBytes) },
    }),
  };
}

describe('timeseries writer', () => {
  it('When seventeen 1 MB entries share one user, key and day, then every one is stored (batches are sized by bytes)', async () => {
    const user = randomUUID();
    const writer = createTimeseriesWriter(env.cql);
    const refused = await writer.write(Array.from({ length: 17 }, (_, i) => entry(user, i, 1_000_000)));
    expect(refused).toEqual([]);
    expect(await createTimeseriesReader(env.cql).countByKey(user)).toEqual({ 'background/battery': 17 });
  });

  it('When one entry is too large for Cassandra ever to take, then it is refused with a reason and the others are stored', async () => {
    const user = randomUUID();
    const writer = createTimeseriesWriter(env.cql);
    const huge = entry(user, 1, 17 * 1024 * 1024);
    const refused = await writer.write([entry(user, 0, 100), huge, entry(user, 2, 100)]).catch((err: unknown) => err);
    expect(refused).not.toBeInstanceOf(DependencyUnavailableError);
    expect(refused).toEqual([{ entry: huge, reason: expect.stringMatching(/exceeds/) }]);
    expect(await createTimeseriesReader(env.cql).countByKey(user)).toEqual({ 'background/battery': 2 });
  });
});
