import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'fast-csv';
import type { CompositeTrip } from '../../services/export/domain/composite-trip.js';
import { emissionFixturesDir } from './fixtures.js';

/** What the export formatters' tests feed them and read back: e-mission's expected composite trips, as streams. */

const labelsDir = join(emissionFixturesDir(), 'emission-labels');

/** The files of e-mission's expected composite trips (emission-labels/), each a JSON array of entries. */
export const expectedCompositeFiles = readdirSync(labelsDir).filter((f) =>
  f.endsWith('.expected_composite_trips.json'),
);

export function loadExpectedComposites(file: string): CompositeTrip[] {
  return JSON.parse(readFileSync(join(labelsDir, file), 'utf8')) as CompositeTrip[];
}

/** A list as the async stream the formatters take. */
export async function* from<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/** A formatter's chunks joined. */
export async function text(chunks: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const chunk of chunks) out += chunk;
  return out;
}

/** CSV text read back with fast-csv, one object per row keyed by the header. */
export async function parseCsv(csv: string): Promise<{ headers: string[]; rows: Record<string, string>[] }> {
  let headers: string[] = [];
  const parser = parse<Record<string, string>, Record<string, string>>({ headers: true }).on(
    'headers',
    (h: string[]) => (headers = h),
  );
  parser.end(csv);
  const rows: Record<string, string>[] = [];
  for await (const row of parser) rows.push(row);
  return { headers, rows };
}
