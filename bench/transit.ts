/**
 * npm run bench:transit: what offline transit stops cost (the question: "Cassandra, or an in-process spatial index
 * loaded at start: your call, measured"). A synthetic regional extract (100,000 × BENCH_SCALE bus stops on a grid
 * over the San Francisco Bay Area, where the real days are, each on one of 2,000 × scale bus lines, and 400 rail
 * stations) is written as OSM XML and loaded by `itinera transit-import`; then the real days' sections get their
 * modes as the trip builder gives them when it builds a trip: with the stops in Cassandra (first with an empty
 * cell cache, then warm), and, as the baseline measured in the same run, the same stops in an in-process k-d tree
 * built from the extract. Writes bench/results/<date>.transit.{json,md}.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../shared/config/index.js';
import { createCassandraClient, createCql } from '../shared/cassandra/index.js';
import { provision } from '../deploy/provision/provision.js';
import { percentile, serviceProcessEnv } from './load.js';
import { indexOsmExtract, type OsmElement, withPredictedModes } from '../services/trip-builder/domain/modes/index.js';
import { toOsmXml } from '../test/helpers/trip-builder/transit-fixture.js';
import { toObservations } from '../services/trip-builder/domain/observations.js';
import { buildTrips, type BuiltTrip } from '../services/trip-builder/domain/timeline/build-trips.js';
import { createCassandraTransitStops } from '../services/trip-builder/store/cassandra-transit-stops.js';
import { loadRealDay, REAL_DAYS } from '../test/helpers/real-days.js';

const root = join(import.meta.dirname, '..');
const scale = Number(process.env['BENCH_SCALE'] ?? 1);
const STOPS = Math.round(100_000 * scale);
const LINES = Math.round(2_000 * scale);

/** Bus stops on a grid over the Bay Area, every line a row of consecutive stops, and a few rail stations. */
function syntheticExtract(): OsmElement[] {
  const [west, south, east, north] = [-122.6, 37.2, -121.7, 38.0];
  const side = Math.ceil(Math.sqrt(STOPS));
  const elements: OsmElement[] = [];
  for (let i = 0; i < STOPS; i++) {
    const [x, y] = [i % side, Math.floor(i / side)];
    elements.push({
      type: 'node',
      id: i + 1,
      lon: west + ((east - west) * x) / side,
      lat: south + ((north - south) * y) / side,
      tags: { highway: 'bus_stop', public_transport: 'platform', name: `stop ${i + 1}` },
    });
  }
  for (let s = 0; s < 400; s++) {
    elements.push({
      type: 'node',
      id: STOPS + s + 1,
      lon: west + ((east - west) * ((s * 37) % 400)) / 400,
      lat: south + ((north - south) * s) / 400,
      tags: { railway: 'station', public_transport: 'station', train: 'yes' },
    });
  }
  const perLine = Math.max(2, Math.floor(STOPS / LINES));
  for (let l = 0; l < LINES; l++) {
    const first = l * perLine + 1;
    elements.push({
      type: 'relation',
      id: 900_000 + l,
      members: Array.from({ length: perLine }, (_, k) => ({ type: 'node' as const, ref: first + k, role: 'stop' })),
      tags: { type: 'route', route: 'bus', ref: String(l), network: 'bench' },
    });
  }
  return elements;
}

/** Milliseconds to give every day's trips their modes, per day, sorted. */
async function timeDays(days: BuiltTrip[][], predict: (trips: BuiltTrip[]) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (const trips of days) {
    const t0 = performance.now();
    await predict(trips);
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b);
}

async function main() {
  const tag = `tr${Date.now().toString(36)}`;
  const config = loadConfig({
    confDir: join(root, 'conf'),
    env: { ...process.env, ITINERA_TOPIC_PREFIX: `bench${tag}.`, CASSANDRA_KEYSPACE: `bench${tag}` },
  });
  await provision(config);
  const dir = mkdtempSync(join(tmpdir(), 'itinera-transit-'));
  const file = join(dir, 'bay-area.osm');
  const elements = syntheticExtract();
  writeFileSync(file, toOsmXml(elements));
  const mb = statSync(file).size / 1024 / 1024;

  process.stdout.write(`bench: transit-import of ${STOPS} stops (${mb.toFixed(0)} MB of OSM XML)…\n`);
  const t0 = performance.now();
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'services/cli/main.ts'), 'transit-import', file], {
    env: serviceProcessEnv(config, dir, 0),
    stdio: ['ignore', 'inherit', 'ignore'],
  });
  const importS = (performance.now() - t0) / 1000;

  const index = await indexOsmExtract({ format: 'xml', open: () => createReadStream(file) });
  const days = REAL_DAYS.map((name) => buildTrips(toObservations(loadRealDay(name)), undefined).trips);
  const lookupsPerDay =
    (days
      .flat()
      .flatMap((t) => t.sections)
      .filter((s) => s.mode === 0 || s.mode === 4).length *
      2) /
    days.length;
  const client = createCassandraClient(config.cassandra);
  try {
    const cql = createCql(client);
    const empty = await timeDays(days, (trips) => withPredictedModes(trips, { stopsNear: async () => [] }));
    const inMemory = await timeDays(days, (trips) => withPredictedModes(trips, index));
    const stops = createCassandraTransitStops(cql);
    const cold = await timeDays(days, (trips) => withPredictedModes(trips, stops));
    const warm = await timeDays(days, (trips) => withPredictedModes(trips, stops));
    const modes = (await withPredictedModes(days.flat(), stops)).flatMap((t) => t.sections.map((s) => s.predictedMode));
    const figures = {
      stops: STOPS,
      lines: LINES,
      extractMb: Math.round(mb),
      importSeconds: Math.round(importS * 10) / 10,
      importStopsPerSecond: Math.round(STOPS / importS),
      lookupsPerUserDay: Math.round(lookupsPerDay * 10) / 10,
      msPerUserDay: {
        noTransitData: Math.round(percentile(empty, 50) * 10) / 10,
        inMemoryIndex: Math.round(percentile(inMemory, 50) * 10) / 10,
        cassandraCold: Math.round(percentile(cold, 50) * 10) / 10,
        cassandraWarm: Math.round(percentile(warm, 50) * 10) / 10,
      },
      busSections: modes.filter((m) => m === 'BUS').length,
      sections: modes.length,
    };
    const rows = [
      `| transit-import, ${STOPS} stops on ${LINES} lines (${figures.extractMb} MB OSM XML) | ${figures.importSeconds} s, ${figures.importStopsPerSecond} stops/s | | |`,
      `| modes of a real user-day (median of 5; ${figures.lookupsPerUserDay} stop lookups a day) | Cassandra cells: ${figures.msPerUserDay.cassandraCold} ms cold, ${figures.msPerUserDay.cassandraWarm} ms warm; no transit data ${figures.msPerUserDay.noTransitData} ms | in-process k-d tree ${figures.msPerUserDay.inMemoryIndex} ms | ${(figures.msPerUserDay.cassandraCold / Math.max(0.1, figures.msPerUserDay.inMemoryIndex)).toFixed(1)} (cold) |`,
      `| sections the synthetic lines make BUS (context: its lines are rows of a grid, not real routes) | ${figures.busSections} of ${figures.sections} | | |`,
    ];
    const table = ['| measurement | figure | baseline (same run) | ratio |', '|---|---|---|---|', ...rows].join('\n');
    process.stdout.write(`\n${table}\n`);
    const out = join(root, 'bench', 'results');
    mkdirSync(out, { recursive: true });
    const date = new Date().toISOString().slice(0, 10);
    writeFileSync(join(out, `${date}.transit.json`), `${JSON.stringify(figures, null, 2)}\n`);
    writeFileSync(join(out, `${date}.transit.md`), `${table}\n`);
  } finally {
    await client.shutdown();
  }
}

await main();
