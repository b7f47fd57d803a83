/** What `ndjsonLines` may do to each entry on its way out. */
export interface NdjsonOptions {
  /**
   * Replaces each user id, e.g. with `keyedUserId(secret, id)` for a de-identified export. It is applied to every
   * `user_id` in the entry, not only the top-level one: a composite trip repeats the user's id in each of its
   * sections, locations, places and inputs, and leaving any of them would undo the de-identification.
   */
  userIdFor?: (id: string) => string;
}

/**
 * Timeseries entries (e-mission's export shape, `{_id, user_id, metadata, data}`) as newline-delimited JSON: one
 * `...\n` line per entry, one entry in memory at a time.
 *
 * Stored entries are JSON text already, so without `userIdFor` a text is passed through unparsed: an export of
 * millions of locations should not pay for a parse and a stringify it does not need. The only change made to such a
 * text is turning line breaks into spaces, since one would split the line: JSON allows a raw line break only as
 * whitespace between tokens, so this never alters a value.
 */
export async function* ndjsonLines(
  entries: AsyncIterable<string | object>,
  opts: NdjsonOptions = {},
): AsyncGenerator<string> {
  const { userIdFor } = opts;
  const replaceUserId = userIdFor === undefined ? undefined : lastValueCache(userIdFor);
  for await (const entry of entries) {
    if (replaceUserId !== undefined) {
      const parsed: unknown = typeof entry === 'string' ? JSON.parse(entry) : entry;
      yield `${JSON.stringify(parsed, userIdReplacer(replaceUserId))}\n`;
    } else if (typeof entry === 'string') {
      yield `${oneLine(entry)}\n`;
    } else {
      yield `${JSON.stringify(entry)}\n`;
    }
  }
}

/**
 * A JSON.stringify replacer that rewrites `user_id` values: `{"$uuid": id}` as e-mission exports them, or a bare
 * id string. Working at stringify time leaves the caller's objects untouched.
 */
function userIdReplacer(userIdFor: (id: string) => string) {
  return (key: string, value: unknown): unknown => {
    if (key !== 'user_id') return value;
    if (typeof value === 'string') return userIdFor(value);
    if (isUuidWrapper(value)) return { ...value, $uuid: userIdFor(value.$uuid) };
    return value;
  };
}

function isUuidWrapper(value: unknown): value is { $uuid: string } {
  return typeof value === 'object' && value !== null && typeof (value as { $uuid?: unknown }).$uuid === 'string';
}

/** An export reads one user after another, so remembering the last answer saves nearly every call (an HMAC each). */
function lastValueCache(fn: (id: string) => string): (id: string) => string {
  let lastIn: string | undefined;
  let lastOut = '';
  return (id) => {
    if (id !== lastIn) {
      lastOut = fn(id);
      lastIn = id;
    }
    return lastOut;
  };
}

function oneLine(json: string): string {
  return json.includes('\n') || json.includes('\r') ? json.replace(/[\r\n]+/g, ' ') : json;
}
