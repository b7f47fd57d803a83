/**
 * Export (the target: "exporting 1,000,000 entries keeps RSS under 200 MB"): one user's raw locations,
 * 1,000,000 × BENCH_SCALE of them, 10,000 a UTC day, are written straight to Cassandra as the converter stores them,
 * then downloaded in one `POST /export/ndjson` call from a gateway process of its own, whose resident memory is
 * sampled every 100 ms. The baseline is the same rows read straight from Cassandra in the same run.
 */
import type { ChildProcess } from 'node:child_process';
import pLimit from 'p-limit';
import { DependencyUnavailableError } from '../shared/errors/index.js';
import type { Config } from '../shared/config/index.js';
import { createCassandraClient, createCql, type Cql, type Statement } from '../shared/cassandra/index.js';
import { upsertStatements } from '../shared/timeseries/index.js';
import { convertEntry, type ConvertedEntry } from '../services/converter/domain/convert-entry.js';
import { entryObjectId } from '../shared/ids/entry-identity.js';
import { MAX_EXPORT_DAYS } from '../services/export/domain/export-range.js';
import { toUsercacheEntry, type PhoneEntry } from '../test/helpers/phone-entries.js';
import { residentMb } from './load.js';

export interface ExportFigures {
  entries: number;
  days: number;
  seedEntriesPerSecond: number;
  exportEntriesPerSecond: number;
  exportMbPerSecond: number;
  exportMb: number;
  exportSeconds: number;
  /** The gateway's resident memory just before the measured export, after a one-day warm-up export. */
  gatewayRestRssMb: number;
  gatewayPeakRssMb: number;
  /** The better of two raw reads, one before and one after the export (see benchExport). */
  rawEntriesPerSecond: number;
  geojsonBytes: number;
}

const DAY_S = 86_400;
const MB = 1024 * 1024;
/** The first seeded day, 2024-01-01: any past UTC midnight does, the export names its days explicitly. */
const FIRST_DAY = Date.UTC(2024, 0, 1) / 1000 / DAY_S;
const PER_DAY = 10_000;
/** Rows per unlogged batch (one partition each) and batches in flight while seeding. */
const BATCH_ROWS = 100;
/** Batches in flight: more only queues in Cassandra's mutation stage until writes time out on 2 cores. */
const IN_FLIGHT = 8;
const RSS_TARGET_MB = 200;

const isoDate = (day: number) => new Date(day * DAY_S * 1000).toISOString().slice(0, 10);

export async function benchExport(
  config: Config,
  startGateway: () => ChildProcess,
  gatewayUrl: string,
  real: readonly PhoneEntry[],
  wanted: number,
): Promise<ExportFigures> {
  // One call exports at most MAX_EXPORT_DAYS days: a larger scale packs more entries into each day instead.
  const days = Math.min(MAX_EXPORT_DAYS, Math.ceil(wanted / PER_DAY));
  const perDay = Math.ceil(wanted / days);
  const entries = days * perDay;
  const client = createCassandraClient({ ...config.cassandra });
  const cql = createCql(client);
  const gateway = startGateway();
  let peakRss = 0;
  const sample = () => (peakRss = Math.max(peakRss, residentMb(gateway.pid) ?? 0));
  const sampler = setInterval(sample, 100);
  const post = (path: string, body: unknown) =>
    fetch(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  try {
    await waitForHealth(gatewayUrl);
    // Registered through the gateway, so the token identifies the user whose uuid the rows are written under.
    const token = `export-${config.kafka.topicPrefix}@itinera.org`;
    const { uuid } = (await (await post('/profile/create', { user: token })).json()) as { uuid?: string };
    if (!uuid) throw new Error('bench: /profile/create gave no uuid');

    process.stdout.write(`bench: export: seeding ${entries} entries over ${days} days…\n`);
    const seedStart = performance.now();
    await seed(cql, uuid, storedTemplate(real), days, perDay);
    const seedEntriesPerSecond = Math.round(entries / ((performance.now() - seedStart) / 1000));

    // Compaction of what was just written competes with the reads that follow: reading raw before and after the
    // export, and keeping the faster, gives the export no advantage from that.
    const rawBefore = await readRaw(cql, uuid, entries);
    const range = { start_date: isoDate(FIRST_DAY), end_date: isoDate(FIRST_DAY + days - 1) };
    // A one-day warm-up export, so JIT, prepared statements and connections are not billed to the measured one.
    const warmUp = await download(() => post('/export/ndjson', { user: token, ...oneDay(FIRST_DAY) }));
    if (warmUp.lines !== perDay) throw new Error(`bench: the warm-up export gave ${warmUp.lines} of ${perDay} lines`);
    const gatewayRestRssMb = residentMb(gateway.pid) ?? 0;

    process.stdout.write(`bench: export: ${entries} entries in one ndjson call…\n`);
    peakRss = 0;
    const ndjson = await download(() => post('/export/ndjson', { user: token, ...range }));
    sample();
    const gatewayPeakRssMb = peakRss;
    if (ndjson.lines !== entries) throw new Error(`bench: the export gave ${ndjson.lines} of ${entries} lines`);

    // No trips were built from these entries: the answer must still be a well-formed, empty FeatureCollection.
    const geojson = await (await post('/export/geojson', { user: token, ...range })).text();
    const collection = JSON.parse(geojson) as { type?: string; features?: unknown[] };
    if (collection.type !== 'FeatureCollection' || collection.features?.length !== 0)
      throw new Error(`bench: the geojson export is not an empty FeatureCollection: ${geojson.slice(0, 200)}`);

    const rawAfter = await readRaw(cql, uuid, entries);
    return {
      entries,
      days,
      seedEntriesPerSecond,
      exportEntriesPerSecond: Math.round(entries / ndjson.seconds),
      exportMbPerSecond: Number((ndjson.bytes / MB / ndjson.seconds).toFixed(1)),
      exportMb: Math.round(ndjson.bytes / MB),
      exportSeconds: Number(ndjson.seconds.toFixed(1)),
      gatewayRestRssMb,
      gatewayPeakRssMb,
      rawEntriesPerSecond: Math.max(rawBefore, rawAfter),
      geojsonBytes: Buffer.byteLength(geojson),
    };
  } finally {
    clearInterval(sampler);
    gateway.kill('SIGTERM');
    await new Promise((r) => (gateway.exitCode !== null || gateway.signalCode ? r(null) : gateway.once('exit', r)));
    // A million entries are about 2 GB on disk (two orderings): dropped, as the soak drops its keyspace.
    await client.execute(`DROP KEYSPACE IF EXISTS ${config.cassandra.keyspace}`).catch(() => undefined);
    await client.shutdown();
  }
}

/** The table rows of this part, in bench/run.ts's columns. */
export function exportRows(e: ExportFigures): string[] {
  return [
    `| seeding: ${e.entries.toLocaleString('en-US')} raw locations written straight to Cassandra (context) | ${e.seedEntriesPerSecond} entries/s | | |`,
    `| export of ${e.entries.toLocaleString('en-US')} raw entries (ndjson, one call) | ${e.exportEntriesPerSecond} entries/s, ${e.exportMbPerSecond} MB/s (${e.exportMb} MB in ${e.exportSeconds} s) | raw Cassandra read, fetchSize 500: ${e.rawEntriesPerSecond} entries/s | ${(e.exportEntriesPerSecond / e.rawEntriesPerSecond).toFixed(2)} |`,
    `| gateway peak RSS during the export | ${e.gatewayPeakRssMb} MB (${e.gatewayRestRssMb} MB at rest before it) | target ≤ ${RSS_TARGET_MB} MB | ${e.gatewayPeakRssMb <= RSS_TARGET_MB ? 'met' : 'MISSED'} |`,
    `| export of the same ${e.days} days as geojson (no trips: an empty FeatureCollection) | ${e.geojsonBytes} bytes | | |`,
  ];
}

async function waitForHealth(gatewayUrl: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${gatewayUrl}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error('bench: timed out waiting for the gateway');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const oneDay = (day: number) => ({ start_date: isoDate(day), end_date: isoDate(day) });

/**
 * A real location in the form the converter stores it. Seeded entries are copies with their own times and id; the
 * formatted times inside keep the template's, since an export passes stored text through without reading it.
 */
function storedTemplate(real: readonly PhoneEntry[]): ConvertedEntry {
  const location = real.find((e) => e.metadata['key'] === 'background/location');
  const converted = location && convertEntry(toUsercacheEntry(location));
  if (!converted?.ok) throw new Error('bench: no real background/location entry to copy');
  return converted.entry;
}

/** A seeding write retried after a timeout (a compaction can stall writes for seconds), as the converter does. */
async function withRetries<T>(write: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await write();
    } catch (err) {
      if (i >= attempts || !(err instanceof DependencyUnavailableError)) throw err;
      await new Promise((r) => setTimeout(r, 500 * i));
    }
  }
}

/**
 * `perDay` entries on each of `days` UTC days, evenly spaced and half a step off midnight (so `data.ts`, a second
 * before `write_ts`, falls on the same day), written as the converter writes them: the rows of `upsertStatements`,
 * grouped by partition into unlogged batches, each day-index row once. Days are built one at a time and at most
 * two are held (one being written while the next is built), so seeding a million entries needs no gigabyte heap.
 */
async function seed(cql: Cql, userId: string, template: ConvertedEntry, days: number, perDay: number): Promise<void> {
  const limit = pLimit(IN_FLIGHT);
  const step = DAY_S / perDay;
  const { key, type } = template;
  const indexRowsSent = new Set<string>();
  let previous: Promise<unknown> = Promise.resolve();
  for (let d = 0; d < days; d++) {
    const open = new Map<string, Statement[]>();
    const batches: Statement[][] = [];
    for (let k = 0; k < perDay; k++) {
      const writeTs = (FIRST_DAY + d) * DAY_S + (k + 0.5) * step;
      const oid = entryObjectId(userId, type, key, writeTs);
      const entryJson = JSON.stringify({
        _id: { $oid: oid },
        user_id: { $uuid: userId.replace(/-/g, '') },
        metadata: { ...template.metadata, write_ts: writeTs },
        data: { ...template.data, ts: writeTs - 1 },
      });
      for (const row of upsertStatements({ userId, key, type, writeTs, dataTs: writeTs - 1, oid, entryJson })) {
        if (row.dayIndex) {
          const id = String(row.statement.params);
          if (indexRowsSent.has(id)) continue;
          indexRowsSent.add(id);
        }
        let batch = open.get(row.group);
        if (!batch || batch.length >= BATCH_ROWS) {
          batch = [];
          open.set(row.group, batch);
          batches.push(batch);
        }
        batch.push(row.statement);
      }
    }
    const current = Promise.all(batches.map((b) => limit(() => withRetries(() => cql.writeBatch(b)))));
    current.catch(() => undefined); // awaited on the next turn; a failure now must not be an unhandled rejection
    await previous;
    previous = current;
  }
  await previous;
}

/**
 * The user's write-ordered partitions read as the export reads them (the day index, then each partition a page of
 * 500 rows at a time, through the same driver wrapper), counting rows: the export's cost minus HTTP and streaming.
 */
async function readRaw(cql: Cql, userId: string, expected: number): Promise<number> {
  const t0 = performance.now();
  let rows = 0;
  for await (const p of cql.iterate('SELECT key, day FROM timeseries_days WHERE user_id = ?', [userId], 5000)) {
    if (String(p['key']).startsWith('#')) continue; // the index of the data.ts-ordered copy, which is not exported
    for await (const _row of cql.iterate(
      'SELECT entry FROM timeseries WHERE user_id = ? AND key = ? AND day = ?',
      [userId, p['key'], p['day']],
      500,
    ))
      rows++;
  }
  if (rows !== expected) throw new Error(`bench: Cassandra holds ${rows} of the ${expected} seeded entries`);
  return Math.round(rows / ((performance.now() - t0) / 1000));
}

/** Reads a streamed answer to its end, counting lines and bytes without holding them. */
async function download(call: () => Promise<Response>): Promise<{ lines: number; bytes: number; seconds: number }> {
  const t0 = performance.now();
  const res = await call();
  if (res.status !== 200 || !res.body) throw new Error(`bench: export answered ${res.status}: ${await res.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { lines, bytes, seconds: (performance.now() - t0) / 1000 };
}
