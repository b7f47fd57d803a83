import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'fast-csv';
import { describe, expect, it } from 'vitest';
import { sharedDataDir } from '../../../test/helpers/shared-data.js';
import type { CompositeTrip } from './composite-trip.js';
import { SECTION_CSV_COLUMNS, sectionsCsv } from './sections-csv.js';

const labelsDir = join(sharedDataDir(), 'emission-labels');
const expectedFiles = readdirSync(labelsDir).filter((f) => f.endsWith('.expected_composite_trips.json'));
const load = (file: string): CompositeTrip[] => JSON.parse(readFileSync(join(labelsDir, file), 'utf8'));

async function* from<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

async function parseCsv(stream: AsyncIterable<string>): Promise<{ headers: string[]; rows: Record<string, string>[] }> {
  let text = '';
  for await (const chunk of stream) text += chunk;
  let headers: string[] = [];
  const parser = parse<Record<string, string>, Record<string, string>>({ headers: true }).on(
    'headers',
    (h: string[]) => (headers = h),
  );
  parser.end(text);
  const rows: Record<string, string>[] = [];
  for await (const row of parser) rows.push(row);
  return { headers, rows };
}

describe('sectionsCsv on e-mission expected composite trips', () => {
  it.each(expectedFiles)('%s: one row per section, in trip and section order', async (file) => {
    const trips = load(file) as any[];
    const { headers, rows } = await parseCsv(sectionsCsv(from(trips), { userId: 'p' }));
    expect(headers).toEqual([...SECTION_CSV_COLUMNS]);
    const sections = trips.flatMap((t) => t.data.sections.map((s: any, index: number) => ({ trip: t, s, index })));
    expect(rows).toHaveLength(sections.length);
    rows.forEach((row, i) => {
      const { trip, s, index } = sections[i]!;
      expect(row).toMatchObject({
        user_id: 'p',
        trip_id: trip._id.$oid,
        section_id: s._id.$oid,
        section_index: String(index),
        start_fmt_time: s.data.start_fmt_time,
        end_fmt_time: s.data.end_fmt_time,
        mode: s.data.sensed_mode_str,
      });
      expect(Number(row['start_ts'])).toBe(s.data.start_ts);
      expect(Number(row['end_ts'])).toBe(s.data.end_ts);
      expect(Number(row['distance_m'])).toBe(s.data.distance);
      expect(Number(row['duration_s'])).toBe(s.data.duration);
    });
  });

  it('writes the header alone when no trip has sections', async () => {
    const untracked: CompositeTrip = { _id: { $oid: 'u' }, data: { start_ts: 1, end_ts: 2, sections: [] } };
    const { headers, rows } = await parseCsv(sectionsCsv(from([untracked]), { userId: 'p' }));
    expect(headers).toEqual([...SECTION_CSV_COLUMNS]);
    expect(rows).toEqual([]);
  });
});
