import { describe, expect, it } from 'vitest';
import {
  expectedCompositeFiles as expectedFiles,
  from,
  loadExpectedComposites as load,
  parseCsv,
  text,
} from '../../../test/helpers/export-fixtures.js';
import type { CompositeTrip } from './composite-trip.js';
import { SECTION_CSV_COLUMNS, sectionsCsv } from './sections-csv.js';

describe('sectionsCsv on e-mission expected composite trips', () => {
  it.each(expectedFiles)('%s: one row per section, in trip and section order', async (file) => {
    const trips = load(file) as any[];
    const { headers, rows } = await parseCsv(await text(sectionsCsv(from(trips), { userId: 'p' })));
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
    const { headers, rows } = await parseCsv(await text(sectionsCsv(from([untracked]), { userId: 'p' })));
    expect(headers).toEqual([...SECTION_CSV_COLUMNS]);
    expect(rows).toEqual([]);
  });
});
