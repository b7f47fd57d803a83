/** What a client or an operator can export, and what each is read from. */
export const EXPORT_FORMATS = {
  /** The raw timeseries entries, one per line, as e-mission exports them. */
  ndjson: { contentType: 'application/x-ndjson; charset=utf-8', fileExtension: 'ndjson', reads: 'raw' },
  /** One Feature per composite trip (untracked periods included). */
  geojson: { contentType: 'application/geo+json; charset=utf-8', fileExtension: 'geojson', reads: 'trips' },
  /** One `<trk>` per tracked trip. */
  gpx: { contentType: 'application/gpx+xml; charset=utf-8', fileExtension: 'gpx', reads: 'trips' },
  /**
   * One row per trip / per section. The two CSVs differ in extension (`trips.csv`, `sections.csv`), so that both
   * can be written to one directory by date without one export taking the other's files for its own.
   */
  'trips-csv': { contentType: 'text/csv; charset=utf-8', fileExtension: 'trips.csv', reads: 'trips' },
  'sections-csv': { contentType: 'text/csv; charset=utf-8', fileExtension: 'sections.csv', reads: 'trips' },
  /** One row per local day: its completeness score and what makes it (shared/quality/day-score.ts). */
  'days-csv': { contentType: 'text/csv; charset=utf-8', fileExtension: 'days.csv', reads: 'days' },
} as const;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

export function isExportFormat(name: string): name is ExportFormat {
  return Object.hasOwn(EXPORT_FORMATS, name);
}

/**
 * The name a downloaded export is saved under: `itinera-<format>-<first day>-<last day>.<ext>`. Every part comes
 * from a closed list or a validated date, so it needs no quoting in a `Content-Disposition` header.
 */
export function attachmentFileName(format: ExportFormat, fromDate: string, toDate: string): string {
  return `itinera-${format}-${fromDate}-${toDate}.${EXPORT_FORMATS[format].fileExtension}`;
}

/** The file of one UTC day in a per-day export (`2016-08-10.geojson`), inside the user's directory. */
export function dayFileName(format: ExportFormat, date: string): string {
  return `${date}.${EXPORT_FORMATS[format].fileExtension}`;
}

/**
 * Where a day's file is written until it is complete: a dot file (hidden, never taken for a finished day) named
 * after the day and the writing process, so two exporters never write into one.
 */
export function partialFileName(format: ExportFormat, date: string, writer: number): string {
  return `.${dayFileName(format, date)}.${writer}.partial`;
}
