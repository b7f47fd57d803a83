import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dayFilePath, parseExportOptions } from './export.js';

const now = Date.parse('2024-03-10T12:00:00Z');

describe('parseExportOptions', () => {
  it('defaults to the 30 days ending yesterday, into itinera-export', () => {
    expect(parseExportOptions('gpx', { all: true }, now)).toEqual({
      format: 'gpx',
      who: undefined,
      outDir: 'itinera-export',
      range: expect.objectContaining({ fromDate: '2024-02-09', toDate: '2024-03-09', days: 30 }),
    });
  });

  it('takes any length of range, one user, a directory', () => {
    const options = parseExportOptions('ndjson', { user: 'a@b', from: '2015-01-01', to: '2024-01-01', out: 'x' }, now);
    expect(options).toMatchObject({ who: 'a@b', outDir: 'x', range: { days: 3288 } });
  });

  it('takes the participants of one program, and only one of -a, -u and --program', () => {
    expect(parseExportOptions('ndjson', { program: 'ebike' }, now)).toMatchObject({ program: 'ebike', who: undefined });
    expect(parseExportOptions('ndjson', { program: 'ebike', all: true }, now)).toMatch(/exactly one of/);
    expect(parseExportOptions('ndjson', { program: 'ebike', user: 'a@b' }, now)).toMatch(/exactly one of/);
  });

  it('de-identifies with a secret and a radius (200 m unless given)', () => {
    expect(parseExportOptions('geojson', { all: true, deidentify: true, secret: 's' }, now)).toMatchObject({
      deidentify: { secret: 's', radiusM: 200 },
    });
    expect(
      parseExportOptions('geojson', { all: true, deidentify: true, secret: 's', radius: '500' }, now),
    ).toMatchObject({ deidentify: { secret: 's', radiusM: 500 } });
  });

  it.each([
    [undefined, { all: true }, /needs a format/],
    ['csv', { all: true }, /got csv/],
    ['gpx', {}, /exactly one of -a/],
    ['gpx', { all: true, user: 'u' }, /exactly one of -a/],
    ['gpx', { all: true, from: '2024-02-30' }, /--from must be an existing date/],
    ['gpx', { all: true, from: '2024-03-02', to: '2024-03-01' }, /--from 2024-03-02 is after --to/],
    ['gpx', { all: true, deidentify: true }, /needs --secret/],
    ['gpx', { all: true, secret: 's' }, /go with --deidentify/],
    ['gpx', { all: true, deidentify: true, secret: 's', radius: 'far' }, /--radius must be/],
  ])('refuses %s %j', (format, args, message) => {
    expect(parseExportOptions(format, args, now)).toMatch(message);
  });
});

describe('dayFilePath', () => {
  it('puts a day in its user directory, named by date and format', () => {
    expect(dayFilePath('out', 'u-1', 'trips-csv', '2016-08-10')).toBe(join('out', 'u-1', '2016-08-10.trips.csv'));
  });
});
