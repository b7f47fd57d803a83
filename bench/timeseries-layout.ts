/**
 * BENCH_PARTS=layout: what Cassandra spends on the timeseries rows of the same entries in two layouts, measured in
 * one run, alternating: "two copies", the earlier layout (each entry's JSON in both orderings), and
 * "one copy", today's (the data.ts ordering holds where each entry is). Both go through the converter's own writer
 * (same batches, same concurrency); the two-copies rows are today's statements with the entry put back into the
 * data.ts row. Cassandra's CPU counts from the first write until it has flushed (the bench tables flush every
 * 10 s) and compacted what it was given and idles again, so a layout's compactions are charged to it.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../shared/config/index.js';
import { createCassandraClient, createCql, type Cql, type Statement } from '../shared/cassandra/index.js';
import type { StoredEntry } from '../shared/timeseries/index.js';
import { createTimeseriesWriter } from '../services/converter/store/cassandra-timeseries-writer.js';
import { cpuMs, sleep } from './load.js';
import { storedEntries } from './raw-baselines.js';
import type { PhoneEntry } from '../test/helpers/phone-entries.js';

export type Layout = 'two copies' | 'one copy';

export interface LayoutRound {
  layout: Layout;
  /** Cassandra's CPU (user + system) per 1,000 entries, writes, flushes and compactions. */
  cassandraCpuMsPer1000: number;
  writeS: number;
  /** From the last write until Cassandra idled (flushes and compactions). */
  settleS: number;
  /** What the keyspace's timeseries tables hold on disk once idle, per entry (system_views.disk_usage). */
  diskBytesPerEntry: number;
}

export interface LayoutFigures {
  entries: number;
  jsonBytesPerEntry: number;
  rounds: LayoutRound[];
}

const WRITE_CHUNK = 5000;
/** The bench tables' memtables flush this often, so what a round wrote is flushed before it is judged idle. */
const FLUSH_PERIOD_MS = 10_000;
/** Cassandra idles when it spends less than this share of a core for IDLE_SECONDS running. */
const IDLE_SHARE = 0.05;
const IDLE_SECONDS = 4;
const SETTLE_LIMIT_S = 300;

/**
 * A Cql that writes the data.ts ordering's rows as the two-copies layout did: with the entry's JSON (from `jsonOf`,
 * by the row's identity) in its `entry` column. Everything else goes through unchanged.
 */
function withDataTsCopies(cql: Cql, jsonOf: Map<string, string>): Cql {
  const copy = (s: Statement): Statement => {
    if (!s.query.startsWith('INSERT INTO timeseries_by_data_ts')) return s;
    const params = s.params as [string, string, number, number, number, string];
    const [userId, key, , , writeTs, type] = params;
    return {
      query:
        'INSERT INTO timeseries_by_data_ts (user_id, key, day, data_ts, write_ts, type, entry) VALUES (?, ?, ?, ?, ?, ?, ?)',
      params: [...params, jsonOf.get(`${userId}|${key}|${writeTs}|${type}`)],
    };
  };
  return { ...cql, writeBatch: (statements) => cql.writeBatch(statements.map(copy)) };
}

/**
 * Waits a flush period, then until Cassandra's CPU stays under IDLE_SHARE of a core for IDLE_SECONDS; the seconds
 * it took until the quiet began.
 */
async function settle(pid: number): Promise<number> {
  const t0 = Date.now();
  await sleep(FLUSH_PERIOD_MS + 2000);
  let quiet = 0;
  let last = cpuMs(pid);
  while (quiet < IDLE_SECONDS && Date.now() - t0 < SETTLE_LIMIT_S * 1000) {
    await sleep(1000);
    const now = cpuMs(pid);
    quiet = now - last < IDLE_SHARE * 1000 ? quiet + 1 : 0;
    last = now;
  }
  return (Date.now() - t0) / 1000 - IDLE_SECONDS;
}

async function round(
  config: Config,
  layout: Layout,
  entries: readonly StoredEntry[],
  cassandraPid: number,
): Promise<LayoutRound> {
  const client = createCassandraClient({ ...config.cassandra });
  try {
    const cql = createCql(client);
    for (const table of ['timeseries', 'timeseries_by_data_ts', 'timeseries_days'])
      await cql.write(`ALTER TABLE ${table} WITH memtable_flush_period_in_ms = ${FLUSH_PERIOD_MS}`, []);
    let writer = createTimeseriesWriter(cql);
    if (layout === 'two copies') {
      await cql.write('ALTER TABLE timeseries_by_data_ts ADD IF NOT EXISTS entry text', []);
      const jsonOf = new Map(entries.map((e) => [`${e.userId}|${e.key}|${e.writeTs}|${e.type}`, e.entryJson]));
      writer = createTimeseriesWriter(withDataTsCopies(cql, jsonOf));
    }
    await settle(cassandraPid);
    const cpu0 = cpuMs(cassandraPid);
    const t0 = performance.now();
    for (let i = 0; i < entries.length; i += WRITE_CHUNK) await writer.write(entries.slice(i, i + WRITE_CHUNK));
    const writeS = (performance.now() - t0) / 1000;
    const settleS = await settle(cassandraPid);
    const cpu = cpuMs(cassandraPid) - cpu0;
    const disk = await cql.read('SELECT table_name, mebibytes FROM system_views.disk_usage WHERE keyspace_name = ?', [
      config.cassandra.keyspace,
    ]);
    const diskMib = disk.rows
      .filter((r) => String(r['table_name']).startsWith('timeseries'))
      .reduce((sum, r) => sum + Number(r['mebibytes']), 0);
    return {
      layout,
      cassandraCpuMsPer1000: Math.round((cpu / entries.length) * 10_000) / 10,
      writeS: Math.round(writeS * 10) / 10,
      settleS: Math.round(settleS * 10) / 10,
      diskBytesPerEntry: Math.round((diskMib * 1024 * 1024) / entries.length),
    };
  } finally {
    await client.shutdown();
  }
}

/**
 * `rounds` rounds of each layout, alternating (two copies first), each into a keyspace of its own that `keyspace`
 * provisions; `entries` entries of 50 users' real-shaped days.
 */
export async function benchTimeseriesLayout(
  keyspace: (layout: Layout, round: number) => Promise<Config>,
  real: PhoneEntry[],
  entries: number,
  cassandraPid: number,
  rounds = 2,
): Promise<LayoutFigures> {
  const users = Array.from({ length: 50 }, () => randomUUID());
  const perUser = Math.ceil(entries / users.length);
  const stored = users.flatMap((user, u) => storedEntries(real, perUser, 7000 + u, user));
  const figures: LayoutRound[] = [];
  for (let r = 0; r < rounds; r += 1) {
    for (const layout of ['two copies', 'one copy'] as const) {
      process.stdout.write(`bench: timeseries layout "${layout}", round ${r + 1}…\n`);
      figures.push(await round(await keyspace(layout, r), layout, stored, cassandraPid));
    }
  }
  const jsonBytes = stored.reduce((sum, e) => sum + Buffer.byteLength(e.entryJson), 0);
  return { entries: stored.length, jsonBytesPerEntry: Math.round(jsonBytes / stored.length), rounds: figures };
}

export function layoutRows(f: LayoutFigures): string[] {
  const mean = (layout: Layout) => {
    const of = f.rounds.filter((r) => r.layout === layout).map((r) => r.cassandraCpuMsPer1000);
    return of.reduce((a, b) => a + b, 0) / of.length;
  };
  const [two, one] = [mean('two copies'), mean('one copy')];
  const each = (layout: Layout) =>
    f.rounds
      .filter((r) => r.layout === layout)
      .map(
        (r) =>
          `${r.cassandraCpuMsPer1000} ms (writes ${r.writeS} s, then ${r.settleS} s; ${r.diskBytesPerEntry} B on disk)`,
      )
      .join(' / ');
  return [
    `| Cassandra CPU per 1,000 entries written, ${f.entries.toLocaleString('en')} entries of ${f.jsonBytesPerEntry} B, entry JSON once | ${each('one copy')} | the same entries in both orderings: ${each('two copies')} | ${(one / two).toFixed(2)} |`,
  ];
}
