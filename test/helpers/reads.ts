import type { Cql, Statement } from '../../shared/cassandra/index.js';
import { upsertStatements } from '../../shared/timeseries/index.js';
import type { Config } from '../../shared/config/index.js';
import { DependencyUnavailableError } from '../../shared/errors/index.js';
import type { GatewayDeps } from '../../services/gateway/app.js';
import { startGateway, type RunningGateway } from './gateway.js';
import type { TestEnv } from './test-env.js';

// Rows written straight to Cassandra, and reads counted, for tests of the gateway's read endpoints.

/** Cassandra reads made by the gateway's diary and timeseries readers: how many at once, how many rows. */
export const reads = { inFlight: 0, maxInFlight: 0, rows: 0 };

export function counted(cql: Cql): Cql {
  return {
    ...cql,
    async read(query, params, options) {
      reads.inFlight += 1;
      reads.maxInFlight = Math.max(reads.maxInFlight, reads.inFlight);
      try {
        const rs = await cql.read(query, params, options);
        reads.rows += rs.rows.length;
        return rs;
      } finally {
        reads.inFlight -= 1;
      }
    },
  };
}
export const resetReads = () => Object.assign(reads, { inFlight: 0, maxInFlight: 0, rows: 0 });

/**
 * Cassandra as seen through an outage that starts at the `failAt`-th read: that read throws what the driver
 * wrapper throws when no replica answers, and so does every read after it. `started` counts the reads attempted.
 */
export function failingFrom(cql: Cql, failAt: number): { cql: Cql; started: () => number } {
  let started = 0;
  return {
    cql: {
      ...cql,
      async read(query, params, options) {
        started += 1;
        if (started >= failAt) throw new DependencyUnavailableError('Cassandra did not answer (simulated outage)');
        return cql.read(query, params, options);
      },
    },
    started: () => started,
  };
}

/** Writes statements as unlogged batches of `size`, a few at a time. */
export async function writeAll(cql: Cql, statements: Statement[], size = 100, parallel = 8): Promise<void> {
  const batches: Statement[][] = [];
  for (let i = 0; i < statements.length; i += size) batches.push(statements.slice(i, i + size));
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < batches.length) await cql.writeBatch(batches[next++]!);
    }),
  );
}

export interface Section {
  userId: string;
  startTs: number;
  mode: string;
  distance?: number;
  duration?: number;
}

export function sectionRows(sections: Section[]): Statement[] {
  return sections.map((s) => ({
    query:
      'INSERT INTO section_metrics (day, user_id, start_ts, time_zone, mode, distance, duration) VALUES (?, ?, ?, ?, ?, ?, ?)',
    params: [
      Math.floor(s.startTs / 86_400),
      s.userId,
      s.startTs,
      'America/Denver',
      s.mode,
      s.distance ?? 100,
      s.duration ?? 50,
    ],
  }));
}

/** One trip-local date of composite trips, as the trip builder stores them for find_entries: a row per entry. */
export function compositeDayRows(
  userId: string,
  localDate: string,
  trips: Array<{ _id: { $oid: string }; data: { end_ts: number } }>,
): Statement[] {
  return trips.map((trip) => ({
    query: 'INSERT INTO composite_entries (user_id, end_ts, entry_id, local_date, entry) VALUES (?, ?, ?, ?, ?)',
    params: [userId, trip.data.end_ts, trip._id.$oid, localDate, JSON.stringify(trip)],
  }));
}

/** Raw location entries, one every `stepS` seconds from `fromTs`, as the converter stores them. */
export async function seedLocations(
  cql: Cql,
  userId: string,
  fromTs: number,
  count: number,
  stepS: number,
): Promise<number[]> {
  const times = Array.from({ length: count }, (_, i) => fromTs + i * stepS);
  const statements = times.flatMap((writeTs, i) =>
    upsertStatements({
      userId,
      key: 'background/location',
      type: 'sensor-data',
      writeTs,
      dataTs: writeTs - 1,
      oid: i.toString(16).padStart(24, '0'),
      entryJson: JSON.stringify({
        _id: { $oid: i.toString(16).padStart(24, '0') },
        user_id: { $uuid: userId.replace(/-/g, '') },
        metadata: { key: 'background/location', write_ts: writeTs, type: 'sensor-data' },
        data: { ts: writeTs - 1, latitude: 39.6, longitude: -104.98 },
      }),
    }).map((row) => row.statement),
  );
  // Rows of different partitions in one batch are fine for a test's setup; each batch stays small.
  await writeAll(cql, statements, 40);
  return times;
}

/** Sequential cheap calls while `heavy` runs: the slowest answer tells whether the event loop was held. */
export async function slowestWhile(
  gw: RunningGateway,
  heavy: Promise<unknown>,
  token: string,
): Promise<{ slowestMs: number; calls: number }> {
  let done = false;
  void heavy.finally(() => (done = true)).catch(() => undefined);
  let slowestMs = 0;
  let calls = 0;
  while (!done) {
    const started = performance.now();
    const res = await gw.post('/pipeline/get_complete_ts', { user: token });
    if (res.status !== 200) throw new Error(`get_complete_ts answered ${res.status}`);
    slowestMs = Math.max(slowestMs, performance.now() - started);
    calls += 1;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { slowestMs, calls };
}

/** A second gateway on the same data with some webserver settings (and readers) changed, closed after `use`. */
export async function withGateway(
  env: TestEnv,
  webserver: Partial<Config['webserver']>,
  use: (gw: RunningGateway) => Promise<void>,
  deps: Partial<GatewayDeps> = {},
): Promise<void> {
  const gw = await startGateway(env, {
    ...deps,
    config: { ...env.config, webserver: { ...env.config.webserver, ...webserver } },
  });
  try {
    await use(gw);
  } finally {
    await gw.close();
  }
}
