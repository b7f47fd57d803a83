import { describe, expect, it } from 'vitest';
import {
  expectedCompositeFiles as expectedFiles,
  from,
  loadExpectedComposites as load,
  parseCsv,
  text,
} from '../../../test/helpers/export-fixtures.js';
import type { CompositeTrip } from './composite-trip.js';
import { TRIP_CSV_COLUMNS, tripsCsv } from './trips-csv.js';

const TRICKY = 'car, "fast"\nlane <&>\r\n;x';

describe('tripsCsv on e-mission expected composite trips', () => {
  it.each(expectedFiles)('%s: one row per trip that reads back to the same values', async (file) => {
    const trips = load(file) as any[];
    const { headers, rows } = await parseCsv(await text(tripsCsv(from(trips), { userId: 'pseudonym-1' })));
    expect(headers).toEqual([...TRIP_CSV_COLUMNS]);
    expect(rows).toHaveLength(trips.length);
    rows.forEach((row, i) => {
      const { _id, user_id, metadata, data } = trips[i];
      expect(row).toMatchObject({
        user_id: 'pseudonym-1',
        trip_id: _id.$oid,
        start_fmt_time: data.start_fmt_time,
        end_fmt_time: data.end_fmt_time,
        modes: data.sections.map((s: any) => s.data.sensed_mode_str).join(';'),
        notes: String(data.additions.length),
        untracked: String(metadata.origin_key === 'analysis/confirmed_untracked'),
      });
      expect(Number(row['start_ts'])).toBe(data.start_ts);
      expect(Number(row['end_ts'])).toBe(data.end_ts);
      expect(Number(row['distance_m'])).toBe(data.distance);
      expect(Number(row['duration_s'])).toBe(data.duration);
      expect(Number(row['start_lat'])).toBe(data.start_loc.coordinates[1]);
      expect(Number(row['start_lon'])).toBe(data.start_loc.coordinates[0]);
      expect(Number(row['end_lat'])).toBe(data.end_loc.coordinates[1]);
      expect(Number(row['end_lon'])).toBe(data.end_loc.coordinates[0]);
      expect(JSON.parse(row['notes_json']!)).toEqual(data.additions.map((a: any) => a.data));
      const otherInputs = JSON.parse(row['other_inputs']!);
      if (data.user_input.trip_user_input) {
        // The survey's answers are kept, its envelope (with the real user id) is not.
        expect(otherInputs.trip_user_input).toEqual(data.user_input.trip_user_input.data);
      } else {
        expect(otherInputs).toEqual({});
      }
      expect(Object.values(row).join()).not.toContain(user_id.$uuid);
    });
  });

  it('writes the header alone when there are no trips', async () => {
    expect(await text(tripsCsv(from([]), { userId: 'u' }))).toBe(`${TRIP_CSV_COLUMNS.join(',')}\n`);
  });
});

describe('tripsCsv with labels that need quoting', () => {
  it('reads commas, quotes, newlines and <&> back unchanged, and a formula as text', async () => {
    const trip: CompositeTrip = {
      _id: { $oid: 'tricky' },
      data: {
        start_ts: 10,
        end_ts: 20,
        start_fmt_time: 'a,b',
        user_input: {
          mode_confirm: TRICKY,
          purpose_confirm: `"${TRICKY}"`,
          replaced_mode_confirm: '=1+1',
          custom: TRICKY,
        },
        additions: [{ data: { label: TRICKY } }],
      },
    };
    const { rows } = await parseCsv(await text(tripsCsv(from([trip, trip]), { userId: 'u,"1"' })));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      user_id: 'u,"1"',
      start_fmt_time: 'a,b',
      end_fmt_time: '',
      mode_confirm: TRICKY,
      purpose_confirm: `"${TRICKY}"`,
      // A formula reads back as text, with the quote that keeps a spreadsheet from running it (csv-stream.ts).
      replaced_mode_confirm: "'=1+1",
      modes: '',
      notes: '1',
      untracked: 'false',
    });
    expect(JSON.parse(rows[1]!['other_inputs']!)).toEqual({ custom: TRICKY });
    expect(JSON.parse(rows[1]!['notes_json']!)).toEqual([{ label: TRICKY }]);
  });
});
