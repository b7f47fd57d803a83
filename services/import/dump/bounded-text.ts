import { Transform } from 'node:stream';
import { createDepthScanner, MAX_JSON_DEPTH } from '../../../shared/json/json-depth.js';

/**
 * What one dump file may hold, so that a file from elsewhere (a gzip that inflates to terabytes, one line of a
 * gigabyte, `[[[[…` a million deep) costs bounded memory, time and stack. A real day's export is a few MB, one entry
 * a few KB, nested about 6 deep.
 */
export interface DumpBounds {
  /** Text of one file once decompressed. */
  maxFileBytes: number;
  /** One entry's text: an NDJSON line, or an array's element. */
  maxEntryBytes: number;
  /** Nesting, the array of an array file included; the phone API takes the same. */
  maxDepth: number;
}

export const DUMP_BOUNDS: DumpBounds = {
  maxFileBytes: 16 * 1024 ** 3,
  maxEntryBytes: 4 * 1024 ** 2,
  maxDepth: MAX_JSON_DEPTH,
};

/** The text of a file within its bounds; where it broke one, the text ends before the entry that did. */
export interface BoundedText extends Transform {
  /** Why the text was cut short, once it was. */
  readonly problem: string | undefined;
  /** Newlines passed on whole: in NDJSON, the line that broke a bound is the one after them. */
  readonly linesPassed: number;
  /** For an array: the reader took an element, so the bytes of the next one count from here. */
  entryDone(): void;
}

const NEWLINE = 0x0a;

/**
 * Passes a file's decompressed text on while it keeps within the bounds. At the first byte that breaks one, the
 * text ends: in NDJSON after the last whole line, in an array where the breach was found (the parser then meets a
 * cut array). The reader reports `problem` in place of whatever that end looks like, and the source is left
 * unread. For NDJSON each line is an entry (length and nesting start again at every newline); for an array the
 * bytes since the reader last took an element are the next one's (give or take the buffers between, far below
 * the bound).
 */
export function boundedText(format: 'array' | 'ndjson', bounds: DumpBounds = DUMP_BOUNDS): BoundedText {
  let total = 0;
  let sinceEntry = 0;
  let linesPassed = 0;
  let problem: string | undefined;
  let depth = createDepthScanner(bounds.maxDepth);
  /** Why the bytes break a bound, and how many of them come before the breach; undefined while within. */
  const check = (bytes: Uint8Array): { why: string; before: number } | undefined => {
    sinceEntry += bytes.length;
    if (sinceEntry > bounds.maxEntryBytes)
      return {
        why: `an entry longer than ${bounds.maxEntryBytes} bytes (the bound of one ${format === 'ndjson' ? 'line' : 'element'})`,
        before: Math.max(0, bytes.length - (sinceEntry - bounds.maxEntryBytes)),
      };
    const deep = depth.push(bytes);
    return deep === null
      ? undefined
      : { why: `JSON nested deeper than ${bounds.maxDepth} levels at ${deep}`, before: depth.foundAt };
  };
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (problem !== undefined) return done();
      const cut = (kept: Buffer, why: string) => {
        problem = why;
        if (kept.length > 0) this.push(kept);
        this.push(null);
        done();
      };
      total += chunk.length;
      if (total > bounds.maxFileBytes)
        return cut(Buffer.alloc(0), `more than ${bounds.maxFileBytes} bytes once decompressed`);
      if (format === 'array') {
        // The elements before the breach go on whole; the parser then meets a cut element and stops.
        const breach = check(chunk);
        return breach === undefined ? done(null, chunk) : cut(chunk.subarray(0, breach.before), breach.why);
      }
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const breach = check(chunk.subarray(start, nl));
        if (breach !== undefined) return cut(chunk.subarray(0, start), breach.why);
        sinceEntry = 0;
        depth = createDepthScanner(bounds.maxDepth);
        linesPassed += 1;
        start = nl + 1;
      }
      const breach = check(chunk.subarray(start));
      return breach === undefined ? done(null, chunk) : cut(chunk.subarray(0, start), breach.why);
    },
  });
  Object.defineProperties(stream, {
    problem: { get: () => problem },
    linesPassed: { get: () => linesPassed },
  });
  return Object.assign(stream, {
    entryDone() {
      sinceEntry = 0;
    },
  }) as BoundedText;
}
