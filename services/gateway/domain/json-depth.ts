import { ValidationError } from '../../../shared/errors/index.js';

/**
 * JSON nesting is bounded before anything acts on a body: deep nesting costs stack in every later step
 * (stringify, Avro encoding, the converter), and a put that fails there after some of its chunks were published
 * would be retried by the phone for ever. Real entries nest about 6 levels deep.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/**
 * The byte offset of the first bracket that opens a level deeper than `maxDepth` (the top value is level 1), or
 * -1. One pass over the bytes, no allocation: UTF-8 continuation bytes never equal a bracket, quote or backslash.
 */
export function tooDeepAt(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i += 1) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth += 1;
      if (depth > maxDepth) return i;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth -= 1;
  }
  return -1;
}

/** Segments of the path shown before it is elided: enough to name the entry and field. */
const SHOWN_SEGMENTS = 6;

/**
 * The path (`phone_to_server[3].data.a…`) of the first value nested deeper than `maxDepth`, or null. Descends at
 * most `maxDepth + 1` levels, so it is safe on any parsed value.
 */
export function tooDeepPath(value: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const walk = (v: unknown, depth: number, path: string[]): string[] | null => {
    if (v === null || typeof v !== 'object') return null;
    if (depth > maxDepth) return path;
    const children: [string, unknown][] = Array.isArray(v)
      ? v.map((item, i) => [`[${i}]`, item] as [string, unknown])
      : Object.entries(v as Record<string, unknown>).map(([k, item]) => [`.${k}`, item] as [string, unknown]);
    for (const [segment, child] of children) {
      const found = walk(child, depth + 1, [...path, segment]);
      if (found) return found;
    }
    return null;
  };
  const path = walk(value, 1, []);
  if (!path) return null;
  const shown = path.slice(0, SHOWN_SEGMENTS).join('').replace(/^\./, '');
  return path.length > SHOWN_SEGMENTS ? `${shown}… (${path.length} levels)` : shown || '(the body)';
}

/** The 400 for a body nested deeper than MAX_JSON_DEPTH, naming where (a path from tooDeepPath, or a byte offset). */
export function tooDeepError(field: string): ValidationError {
  return new ValidationError(`JSON nests deeper than ${MAX_JSON_DEPTH} levels at ${field}`, {
    details: { field, max_depth: MAX_JSON_DEPTH },
  });
}
