import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'fast-csv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from 'xmlbuilder2';
import { createUsersTable } from '../../shared/tables/index.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { seedLocations } from '../../test/helpers/reads.js';
import { runCli, startInProcessPipeline, type InProcessPipeline } from '../../test/helpers/pipeline.js';
import { DAY_OF, phoneEntries } from '../../test/helpers/real-days.js';
import { waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { compositeTrips, pushEntries, settledTrips, timeline } from '../../test/helpers/trips.js';

/**
 * Exports of a real day through the API (the user's own token) and the CLI: each format read back with a parser
 * and checked against what getTrips and find_entries show of the same data.
 */

const DAY = 'shankari_2016-08-10';
/** At least this many trips (getTrips is the reference for how many exactly). */
const TRIPS = 4;
const USER = 'export-owner@example.org';
const OTHER = 'export-other@example.org';

let pipeline: InProcessPipeline;
let env: TestEnv;
let gw: RunningGateway;
const entries = phoneEntries(DAY);
/** The UTC days the entries were written on (the local day runs into the next UTC day). */
const utcDay = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 10);
const range = {
  start_date: utcDay(Math.min(...entries.map((e) => e.metadata.write_ts))),
  end_date: utcDay(Math.max(...entries.map((e) => e.metadata.write_ts))),
};

/** POST /export/<format>, the answer as text. */
async function download(format: string, body: Record<string, unknown>) {
  const res = await fetch(`${gw.url}/export/${format}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const ndjsonLines = (text: string) => text.split('\n').filter((line) => line !== '');

async function parseCsv(text: string): Promise<Record<string, string>[]> {
  const parser = parse<Record<string, string>, Record<string, string>>({ headers: true });
  parser.end(text);
  const rows: Record<string, string>[] = [];
  for await (const row of parser) rows.push(row);
  return rows;
}

beforeAll(async () => {
  pipeline = await startInProcessPipeline();
  ({ env, gw } = pipeline);
  for (const user of [USER, OTHER]) expect((await gw.post('/profile/create', { user })).status).toBe(200);
  await pushEntries(gw, USER, entries);
  await settledTrips(gw, USER, DAY_OF[DAY], TRIPS);
  // The converter is seconds behind the puts: wait until every entry is in the timeseries.
  await waitFor(
    async () => {
      const { text } = await download('ndjson', { user: USER, ...range });
      return ndjsonLines(text).length >= entries.length ? true : undefined;
    },
    60_000,
    'every pushed entry in the timeseries',
  );
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('export through the API', () => {
  it('When the raw entries are exported as NDJSON, then there is one line per entry pushed, as a download', async () => {
    const { status, headers, text } = await download('ndjson', { user: USER, ...range });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(headers.get('content-disposition')).toBe(
      `attachment; filename="itinera-ndjson-${range.start_date}-${range.end_date}.ndjson"`,
    );
    const lines = ndjsonLines(text).map((line) => JSON.parse(line));
    expect(lines).toHaveLength(entries.length);
    expect(new Set(lines.map((e) => e.metadata.write_ts)).size).toBe(
      new Set(entries.map((e) => e.metadata.write_ts)).size,
    );
  });

  it('When trips are exported as GeoJSON, then it has one feature per trip of getTrips, with its times', async () => {
    const { status, headers, text } = await download('geojson', { user: USER, ...range });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/geo+json; charset=utf-8');
    const collection = JSON.parse(text);
    expect(collection.type).toBe('FeatureCollection');
    const trips = await timeline(gw, USER, DAY_OF[DAY]);
    const times = (list: { start: number; end: number }[]) => list.map((t) => `${t.start}-${t.end}`).sort();
    expect(
      times(collection.features.map((f: any) => ({ start: f.properties.start_ts, end: f.properties.end_ts }))),
    ).toEqual(times(trips.map((t) => ({ start: t.properties.start_ts, end: t.properties.end_ts }))));
  });

  it('When trips are exported as GPX, then it parses with one trk per trip', async () => {
    const { status, text } = await download('gpx', { user: USER, ...range });
    expect(status).toBe(200);
    const doc = convert(text, { format: 'object' }) as any;
    const tracks = [doc.gpx.trk].flat();
    expect(tracks).toHaveLength((await timeline(gw, USER, DAY_OF[DAY])).length);
    expect(tracks.length).toBeGreaterThanOrEqual(TRIPS);
    expect(tracks.every((trk: any) => [trk.trkseg].flat().length > 0)).toBe(true);
  });

  it('When trips are exported as CSV, then fast-csv reads back one row per trip with its id', async () => {
    const { status, text } = await download('trips-csv', { user: USER, ...range });
    expect(status).toBe(200);
    const rows = await parseCsv(text);
    const composites = await compositeTrips(gw, USER);
    expect(rows.map((r) => r['trip_id'])).toEqual(composites.map((t) => t._id.$oid));
    const sections = await parseCsv((await download('sections-csv', { user: USER, ...range })).text);
    expect(sections.length).toBe(composites.reduce((n, t) => n + t.data.sections.length, 0));
  });

  it('When the range is over 366 days, the format unknown or the path prefixed, then 400, 404, and the route still', async () => {
    const tooLong = await download('geojson', { user: USER, start_date: '2015-08-10', end_date: '2016-08-10' });
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.text).error.code).toBe('VALIDATION_FAILED');
    expect((await download('shapefile', { user: USER, ...range })).status).toBe(404);
    expect((await gw.post('/api/export/geojson', { user: USER, ...range })).status).toBe(200);
    // No range: the last 30 days, which hold nothing of 2016.
    const recent = await download('geojson', { user: USER });
    expect(recent.status).toBe(200);
    expect(JSON.parse(recent.text).features).toEqual([]);
    // The first and the last days a calendar has are dates like any other: answered, empty, under their own name.
    for (const day of ['0001-01-01', '9999-12-31']) {
      for (const format of ['ndjson', 'geojson', 'trips-csv']) {
        const edge = await download(format, { user: USER, start_date: day, end_date: day });
        expect(edge.status, `${format} ${day}`).toBe(200);
        expect(edge.headers.get('content-disposition'), `${format} ${day}`).toContain(`-${day}-${day}.`);
      }
      expect(
        JSON.parse((await download('geojson', { user: USER, start_date: day, end_date: day })).text).features,
      ).toEqual([]);
    }
  });

  it("When another user exports the same days, then nothing of the first user's data is in it", async () => {
    const owner = await createUsersTable(env.cql).findByEmail(USER);
    for (const format of ['ndjson', 'geojson', 'gpx', 'trips-csv']) {
      const { status, text } = await download(format, { user: OTHER, ...range });
      expect(status).toBe(200);
      expect(text).not.toContain(owner!.uuid.replace(/-/g, ''));
      expect(text).not.toContain(owner!.uuid);
    }
    expect(ndjsonLines((await download('ndjson', { user: OTHER, ...range })).text)).toEqual([]);
    expect(JSON.parse((await download('geojson', { user: OTHER, ...range })).text).features).toEqual([]);
  });
});

describe('a download that stalls', () => {
  it('When a client stops reading an export, then its connection is closed after the idle time and the export can be asked again', async () => {
    // A gateway that gives up on a silent client after one second.
    const quick = await startGateway(env, {
      config: { ...env.config, webserver: { ...env.config.webserver, exportIdleTimeoutMs: 1000 } },
    });
    try {
      const token = 'export-stalls@example.org';
      const userId = (await quick.post('/profile/create', { user: token })).body.uuid as string;
      // About 14 MB of NDJSON: more than the loopback connection's buffers hold, so the server's writes stall.
      const from = Date.UTC(2016, 5, 1) / 1000;
      await seedLocations(env.cql, userId, from, 60_000, 5);
      const days = { start_date: '2016-06-01', end_date: '2016-06-05' };
      const body = JSON.stringify({ user: token, ...days });
      const whole = await fetch(`${quick.url}/export/ndjson`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const size = (await whole.arrayBuffer()).byteLength;
      expect(size).toBeGreaterThan(10_000_000);

      // A client that reads the start of the download, then nothing.
      const { hostname, port } = new URL(quick.url);
      const socket = connect(Number(port), hostname);
      let received = 0;
      let closed = false;
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      socket.on('close', () => (closed = true));
      socket.write(
        `POST /export/ndjson HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await waitFor(async () => (received > 65_536 ? true : undefined), 10_000, 'the start of the download');
      socket.pause();
      // While it stalls, the export holds the user's slot; once closed for idleness, a new one is answered.
      const again = await waitFor(
        async () => {
          const res = await quick.post('/export/ndjson', JSON.parse(body));
          return res.status === 200 ? res : undefined;
        },
        15_000,
        'the slot freed',
      );
      expect(again.status).toBe(200);
      socket.resume();
      await waitFor(async () => (closed ? true : undefined), 10_000, 'the stalled connection closed');
      // Cut short by the server, not finished.
      expect(received).toBeLessThan(size);
    } finally {
      await quick.close();
    }
  });
});

describe('export through the CLI', () => {
  it('When an operator exports a user by day, then each day with data is a file, and a second run skips them', async () => {
    const out = mkdtempSync(join(tmpdir(), 'itinera-export-'));
    const uuid = (await createUsersTable(env.cql).findByEmail(USER))!.uuid;
    const args = ['export', 'geojson', '-u', USER, '--from', range.start_date, '--to', range.end_date, '--out', out];
    const first = await runCli(env, args);
    const files = readdirSync(join(out, uuid)).sort();
    for (const file of files) expect([range.start_date, range.end_date].map((d) => `${d}.geojson`)).toContain(file);
    expect(files.length).toBeGreaterThan(0);
    expect(first).toMatch(new RegExp(`^${files.length} files, \\d+ bytes written`));
    const features = files.flatMap((f) => JSON.parse(readFileSync(join(out, uuid, f), 'utf8')).features);
    expect(features.map((f) => f.id)).toEqual((await compositeTrips(gw, USER)).map((t) => t._id.$oid));

    const second = await runCli(env, args);
    expect(second).toMatch(new RegExp(`^0 files, 0 bytes written to .*; ${files.length} days already there`));
    expect(readdirSync(join(out, uuid)).sort()).toEqual(files);

    // All users, de-identified: a directory per pseudonym, never the uuid.
    const all = await runCli(env, [
      'export',
      'ndjson',
      '-a',
      '--from',
      range.start_date,
      '--to',
      range.end_date,
      '--out',
      out,
      '--deidentify',
      '--secret',
      's3cret',
    ]);
    expect(all).toMatch(/^[1-9]\d* files/);
    // The other user has no data of those days: no directory.
    const dirs = readdirSync(out).filter((d) => d !== uuid);
    expect(dirs).toHaveLength(1);
    const lines = readdirSync(join(out, dirs[0]!)).flatMap((f) =>
      ndjsonLines(readFileSync(join(out, dirs[0]!, f), 'utf8')),
    );
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(entries.length);
    expect(lines.join('\n')).not.toContain(uuid.replace(/-/g, ''));
  });
});
