import { MAX_JSON_DEPTH } from '../../../shared/json/json-depth.js';
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from '../../../shared/json/json-bytes.js';

/**
 * Where each entry of a put's list lies in the body's bytes, so the gateway can parse one entry at a time and
 * publish each entry's `metadata` and `data` as the very text the phone sent, instead of parsing the whole put
 * into one object graph (ten times the body's size in heap) and writing every entry back to JSON.
 *
 * Spans are byte offsets: [start, end) of the element, of its `metadata` object and of its `data` object (-1 when
 * the element has no such object member; the last one when a key repeats, as JSON.parse keeps the last).
 */
export interface PutLayout {
  /** Offset of the list's `[` and of its `]`. */
  listOpen: number;
  listClose: number;
  /** Elements in the list, all of them. */
  count: number;
  /** SPAN_FIELDS numbers per element, for the first `maxElements + 1` elements. */
  spans: Int32Array;
}

/** A put's entries as text, one at a time: what domain/put-entries.ts recordsFromTexts reads. */
export interface PutEntryTexts {
  readonly count: number;
  /** The entry's JSON text. */
  element(index: number): string;
  /** The text of its `metadata` or `data` object as the phone sent it, or null where the layout found none. */
  metadata(index: number): string | null;
  data(index: number): string | null;
}

/** The texts of the entries of `layout`, a layout of `text` (offsets are bytes: `text` must be ASCII). */
export function entryTexts(text: string, layout: PutLayout): PutEntryTexts {
  const { spans } = layout;
  const slice = (index: number, field: number) => {
    const at = index * SPAN_FIELDS + field;
    // Past the elements whose spans were kept (a list over the limit, refused on its count): nothing.
    if (index >= layout.count || at + 1 >= spans.length) return null;
    const start = spans[at]!;
    const end = spans[at + 1]!;
    return start < 0 || end < 0 ? null : text.slice(start, end);
  };
  return {
    count: layout.count,
    element: (index) => slice(index, ELEMENT) ?? '',
    metadata: (index) => slice(index, METADATA),
    data: (index) => slice(index, DATA),
  };
}

export const SPAN_FIELDS = 6;
export const ELEMENT = 0;
export const METADATA = 2;
export const DATA = 4;

/** Bytes that only continue a number or a literal (true, false, null): most of what lies outside strings. */
const PLAIN = new Uint8Array(256);
for (const c of Buffer.from('0123456789+-.eEtrufalsn')) PLAIN[c] = 1;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

const METADATA_KEY = Buffer.from('metadata');
const DATA_KEY = Buffer.from('data');

/**
 * Offset of the quote that closes the string whose text begins at `from`, or -1. Jumps from quote to quote with a
 * native search (most of a put's bytes are inside strings); a quote preceded by an odd run of backslashes is escaped.
 */
function closingQuote(bytes: Uint8Array, from: number): number {
  let quote = bytes.indexOf(QUOTE, from);
  while (quote >= 0) {
    let slashes = 0;
    for (let k = quote - 1; k >= from && bytes[k] === BACKSLASH; k--) slashes += 1;
    if (slashes % 2 === 0) return quote;
    quote = bytes.indexOf(QUOTE, quote + 1);
  }
  return -1;
}

/** A key written with escapes (`"d\u0061ta"`): its bytes are not what it spells. */
const ESCAPED_KEY = -2;

/** Which of `keys` the bytes [start, end) spell, -1 for none, or ESCAPED_KEY. */
function keyIndex(bytes: Uint8Array, start: number, end: number, keys: readonly Uint8Array[]): number {
  for (let j = start; j < end; j++) if (bytes[j] === BACKSLASH) return ESCAPED_KEY;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (key.length !== end - start) continue;
    let same = true;
    for (let j = 0; j < key.length && same; j++) same = bytes[start + j] === key[j];
    if (same) return k;
  }
  return -1;
}

/**
 * Finds the list held by the top-level object's member `listKey` and the spans of its elements, in one pass over
 * the bytes. Not a validator: it only delimits, and the caller parses the body outside the list and each element on
 * its own, which together validate exactly what parsing the whole body would. Returns null (parse the whole body
 * instead) when the body is not laid out so: no such list, the key twice (whatever its second value), a key of the
 * top-level object or of an entry written with escapes (JSON.parse would read it as the key it spells, and a
 * repeated `metadata` could then be checked in one object and published from another), brackets that do not match,
 * nesting deeper than MAX_JSON_DEPTH. A body it lays out is therefore nested within the bound.
 *
 * Spans are kept for the first `maxElements + 1` elements only, so a hostile list of millions of commas costs no
 * more memory than a list one over the limit; `count` is still every element's, for the refusal to name.
 */
export function locatePutList(bytes: Uint8Array, listKey: string, maxElements: number): PutLayout | null {
  const topKeys = [Buffer.from(listKey)];
  const entryKeys = [METADATA_KEY, DATA_KEY];
  const isArray = new Uint8Array(MAX_JSON_DEPTH + 2);
  /** Per depth: the next string in this object is a key. */
  const expectKey = new Uint8Array(MAX_JSON_DEPTH + 2);
  /** Per depth: which candidate the object's current key matched (-1 none). */
  const keyAt = new Int8Array(MAX_JSON_DEPTH + 2);
  const maxSpans = (maxElements + 1) * SPAN_FIELDS;
  let spans = new Int32Array(Math.min(SPAN_FIELDS * 1024, maxSpans));
  let count = 0;
  /** Where the current element's spans go, -1 past the elements kept. */
  let slot = -1;
  let listKeySeen = false;
  let depth = 0;
  let listOpen = -1;
  let listClose = -1;
  /** Offset of the current element's first byte, -1 between elements. The list's elements are at depth 2. */
  let elementStart = -1;
  let lastSignificant = -1;
  let inList = false;
  /** A comma at list level was seen and no element has begun since. */
  let afterComma = false;

  /** Called after startElementSpans chose the element's slot. */
  const closeElement = () => {
    if (slot >= 0) {
      spans[slot + ELEMENT] = elementStart < 0 ? lastSignificant + 1 : elementStart;
      spans[slot + ELEMENT + 1] = lastSignificant + 1;
    }
    count += 1;
    elementStart = -1;
  };
  const startElementSpans = () => {
    slot = count <= maxElements ? count * SPAN_FIELDS : -1;
    if (slot < 0) return;
    if (slot + SPAN_FIELDS > spans.length) {
      const grown = new Int32Array(Math.min(spans.length * 2, maxSpans));
      grown.set(spans);
      spans = grown;
    }
    spans.fill(-1, slot + METADATA, slot + SPAN_FIELDS);
  };

  for (let i = 0; i < bytes.length; i += 1) {
    const c = bytes[i]!;
    if (PLAIN[c] === 1 && depth > 2) {
      if (inList) lastSignificant = i;
      continue;
    }
    if (isWhitespace(c)) continue;
    if (inList && depth === 2 && elementStart < 0 && c !== COMMA && c !== CLOSE_ARRAY) {
      elementStart = i;
      afterComma = false;
      startElementSpans();
    }
    if (c === QUOTE) {
      const close = closingQuote(bytes, i + 1);
      if (close < 0) return null;
      const isKey = !isArray[depth] && expectKey[depth] === 1 && (depth === 1 || (inList && depth === 3));
      if (isKey) {
        const key = keyIndex(bytes, i + 1, close, depth === 1 ? topKeys : entryKeys);
        if (key === ESCAPED_KEY) return null;
        if (depth === 1 && key === 0) {
          if (listKeySeen) return null;
          listKeySeen = true;
        }
        keyAt[depth] = key;
      }
      i = close;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      // Deeper than the bound: the caller's depth scan names where, and refuses the body.
      if (depth === MAX_JSON_DEPTH) return null;
      const opensList = depth === 1 && c === OPEN_ARRAY && !isArray[1] && expectKey[1] === 0 && keyAt[1] === 0;
      if (opensList) {
        if (listOpen >= 0) return null;
        listOpen = i;
        inList = true;
      }
      const member = keyAt[3]!;
      if (inList && depth === 3 && c === OPEN_OBJECT && expectKey[3] === 0 && member >= 0) {
        if (slot >= 0) spans[slot + (member === 0 ? METADATA : DATA)] = i;
      }
      depth += 1;
      isArray[depth] = c === OPEN_ARRAY ? 1 : 0;
      expectKey[depth] = 1;
      keyAt[depth] = -1;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 0 || isArray[depth] !== (c === CLOSE_ARRAY ? 1 : 0)) return null;
      if (inList && depth === 2) {
        // A trailing comma ("1,]") ends in an empty element, which then fails to parse.
        if (elementStart < 0 && afterComma) startElementSpans();
        if (elementStart >= 0 || afterComma) closeElement();
        listClose = i;
        inList = false;
      } else if (inList && depth === 4 && !isArray[4] && !isArray[3] && keyAt[3]! >= 0) {
        if (slot >= 0) spans[slot + (keyAt[3] === 0 ? METADATA : DATA) + 1] = i + 1;
      }
      depth -= 1;
    } else if (c === COMMA) {
      if (inList && depth === 2) {
        // An empty element ("[,") gets an empty span, which then fails to parse, as the whole body would.
        if (elementStart < 0) startElementSpans();
        closeElement();
        afterComma = true;
      } else expectKey[depth] = 1;
    } else if (c === COLON) expectKey[depth] = 0;
    if (inList) lastSignificant = i;
  }
  if (listOpen < 0 || listClose < 0 || depth !== 0) return null;
  return { listOpen, listClose, count, spans };
}
