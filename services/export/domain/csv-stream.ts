import { type CsvFormatterStream, format, type FormatterRowMap } from 'fast-csv';

/** A CSV row before formatting: fast-csv writes a number or boolean as its `String()`, a missing value as empty. */
export type CsvRow = Record<string, string | number | boolean | null | undefined>;

/** What the CSV exports return: a Node Readable (a Transform) whose chunks are UTF-8 strings of CSV text. */
export type CsvTextStream = CsvFormatterStream<FormatterRowMap, FormatterRowMap>;

export interface CsvExportOptions {
  /**
   * The id written in the `user_id` column (a pseudonym for a de-identified export). It is a parameter because a
   * composite entry carries its user only sometimes, and never the pseudonym.
   */
  userId: string;
}

/**
 * CSV text for the rows each item of `source` gives, as a stream that pulls from `source` only while its reader
 * keeps up (backpressure): memory holds one item and what the reader has not yet taken.
 *
 * The header is written even when there are no rows, so an empty export still says what its columns are. If
 * `source` fails, the stream is destroyed with that error, so the reader sees a failure rather than a file that
 * looks complete; if the reader goes away (the stream is destroyed), `source` is closed and not read further.
 */
export function csvStream<T>(
  headers: readonly string[],
  source: AsyncIterable<T>,
  rowsOf: (item: T) => Iterable<CsvRow>,
): CsvTextStream {
  const csv = format<FormatterRowMap, FormatterRowMap>({
    headers: [...headers],
    alwaysWriteHeaders: true,
    includeEndRowDelimiter: true,
  });
  csv.setEncoding('utf8');
  void pump(source, rowsOf, csv);
  return csv;
}

async function pump<T>(
  source: AsyncIterable<T>,
  rowsOf: (item: T) => Iterable<CsvRow>,
  csv: CsvTextStream,
): Promise<void> {
  try {
    for await (const item of source) {
      for (const row of rowsOf(item)) {
        if (csv.destroyed) return;
        if (!csv.write(neutralised(row))) await writableAgain(csv);
      }
    }
    if (!csv.destroyed) csv.end();
  } catch (error) {
    csv.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

/** First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The row with every text cell that a spreadsheet would run as a formula (a label or a token starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return) prefixed with `'`, which spreadsheets show as text and do not evaluate.
 * Numbers are written as numbers: a negative one is a value, not a formula.
 */
export function neutralised(row: CsvRow): CsvRow {
  let out: CsvRow | undefined;
  for (const [key, value] of Object.entries(row)) {
    if (typeof value !== 'string' || !FORMULA_START.test(value)) continue;
    out ??= { ...row };
    out[key] = `'${value}`;
  }
  return out ?? row;
}

/** Resolves once the stream wants more, or once it is closed (then nobody will drain it and the pump must stop). */
function writableAgain(csv: CsvTextStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      csv.off('drain', done);
      csv.off('close', done);
      resolve();
    };
    csv.on('drain', done);
    csv.on('close', done);
  });
}
