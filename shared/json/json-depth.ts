import { ValidationError } from '../errors/index.js';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-bytes.js';

/**
 * JSON nesting is bounded before anything acts on a body: deep nesting costs stack in every later step
 * (stringify, Avro encoding, the converter), a put that fails there after some of its chunks were published would
 * be retried by the phone for ever, and parsing a deeply nested body is itself slow (half a second per megabyte of
 * `[[[[`). Real entries nest about 6 levels deep.
 */
export const MAX_JSON_DEPTH = 64;

/** Bytes of an object key kept to name a path; a longer key is shown cut. */
const KEY_BYTES = 40;
/** Segments of the path shown before it is elided: enough to name the entry and field. */
const SHOWN_SEGMENTS = 6;

export interface DepthScanner {
  /**
   * Scans the next bytes of the body. Returns the path (`phone_to_server[3].data.a… (64 levels)`) of the first value
   * nested deeper than the maximum, once it is seen, else null. A body may be fed in chunks split anywhere.
   */
  push(bytes: Uint8Array): string | null;
  /** Where in the bytes last pushed the too-deep value opens, once push has found one. */
  readonly foundAt: number;
}

/**
 * Finds a too-deep value in JSON text as its bytes arrive, before anything parses it: one pass, no allocation but
 * the fixed frame stack (a frame per open level: array index, or the object's current key). Not a validator:
 * malformed JSON is the parser's to refuse. UTF-8 continuation bytes never equal a bracket, quote or backslash.
 */
export function createDepthScanner(maxDepth = MAX_JSON_DEPTH): DepthScanner {
  const isArray = new Uint8Array(maxDepth + 1);
  const index = new Uint32Array(maxDepth + 1);
  const expectKey = new Uint8Array(maxDepth + 1);
  const keyLength = new Uint8Array(maxDepth + 1);
  const keyBytes = new Uint8Array((maxDepth + 1) * KEY_BYTES);
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** The string being read is the key of the object at `depth`. */
  let inKey = false;
  let foundAt = -1;

  const path = (): string => {
    const segments: string[] = [];
    for (let d = 1; d <= maxDepth; d++) {
      if (isArray[d]) segments.push(`[${index[d]}]`);
      else {
        const key = Buffer.from(keyBytes.subarray(d * KEY_BYTES, d * KEY_BYTES + keyLength[d]!)).toString('utf8');
        segments.push(`.${key}`);
      }
    }
    const shown = segments.slice(0, SHOWN_SEGMENTS).join('').replace(/^\./, '');
    return `${shown}… (${segments.length} levels)`;
  };

  return {
    push(bytes) {
      for (let i = 0; i < bytes.length; i += 1) {
        const c = bytes[i]!;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) {
            inString = false;
            inKey = false;
            continue;
          }
          if (inKey && keyLength[depth]! < KEY_BYTES) keyBytes[depth * KEY_BYTES + keyLength[depth]!++] = c;
        } else if (c === QUOTE) {
          inString = true;
          inKey = depth > 0 && !isArray[depth] && expectKey[depth] === 1;
          if (inKey) keyLength[depth] = 0;
        } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
          if (depth === maxDepth) {
            foundAt = i;
            return path();
          }
          depth += 1;
          isArray[depth] = c === OPEN_ARRAY ? 1 : 0;
          index[depth] = 0;
          expectKey[depth] = 1;
          keyLength[depth] = 0;
        } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
          if (depth > 0) depth -= 1;
        } else if (c === COMMA && depth > 0) {
          if (isArray[depth]) index[depth]! += 1;
          else expectKey[depth] = 1;
        } else if (c === COLON && depth > 0) expectKey[depth] = 0;
      }
      return null;
    },
    get foundAt() {
      return foundAt;
    },
  };
}

/** The 400 for a body nested deeper than MAX_JSON_DEPTH, naming where. */
export function tooDeepError(field: string): ValidationError {
  return new ValidationError(`JSON nests deeper than ${MAX_JSON_DEPTH} levels at ${field}`, {
    details: { field, max_depth: MAX_JSON_DEPTH },
  });
}
