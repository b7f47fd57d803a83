import { describe, expect, it } from 'vitest';
import { attachmentFileName, dayFileName, isExportFormat, partialFileName } from './export-formats.js';

describe('export formats and file names', () => {
  it('knows the five formats and nothing else', () => {
    for (const name of ['ndjson', 'geojson', 'gpx', 'trips-csv', 'sections-csv'])
      expect(isExportFormat(name)).toBe(true);
    for (const name of ['csv', 'toString', '__proto__', 'constructor', '']) expect(isExportFormat(name)).toBe(false);
  });

  it('names a download after the format and its days', () => {
    expect(attachmentFileName('geojson', '2016-08-10', '2016-08-11')).toBe(
      'itinera-geojson-2016-08-10-2016-08-11.geojson',
    );
    expect(attachmentFileName('trips-csv', '2016-08-10', '2016-08-10')).toBe(
      'itinera-trips-csv-2016-08-10-2016-08-10.trips.csv',
    );
  });

  it('names a day file by its date, distinct for the two CSVs, and its partial as a dot file', () => {
    expect(dayFileName('gpx', '2016-08-10')).toBe('2016-08-10.gpx');
    expect(dayFileName('trips-csv', '2016-08-10')).not.toBe(dayFileName('sections-csv', '2016-08-10'));
    expect(partialFileName('ndjson', '2016-08-10', 42)).toBe('.2016-08-10.ndjson.42.partial');
  });
});
