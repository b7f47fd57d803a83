/**
 * The `manual/*` inputs the phone sends, as the timeseries stores them (`{_id, metadata, data}`), and the keys
 * the matcher knows. Facts from e-mission (labels-and-modes.md §1–3): the key of a result is the input key without
 * `manual/`; MULTILABEL results are the `label` string, survey results the whole entry.
 */

/** What every matchable input carries in `data`; the rest (xmlResponse, name, local times…) rides along untouched. */
export interface UserInputData {
  start_ts: number;
  end_ts: number;
  label?: string;
  /** Notes only: missing means ACTIVE; a deletion re-sends the same data with DELETED. */
  status?: string;
  /** Notes only: what ties a DELETED copy to the ACTIVE note it removes. */
  match_id?: string;
  [field: string]: unknown;
}

export interface UserInputMetadata {
  key: string;
  write_ts: number;
  [field: string]: unknown;
}

export interface UserInputEntry {
  _id: { $oid: string };
  metadata: UserInputMetadata;
  data: UserInputData;
  [field: string]: unknown;
}

/** Labels chosen from a list: the trip keeps only the label string. */
export const MULTILABEL_KEYS = ['manual/mode_confirm', 'manual/purpose_confirm', 'manual/replaced_mode'] as const;
/** One survey per trip: the trip keeps the whole entry, which the app reads as `user_input.trip_user_input.data`. */
export const TRIP_SURVEY_KEY = 'manual/trip_user_input';
/**
 * A place survey: in e-mission's keylist but never sent by the current phone (and not formatted by e-mission).
 * Matched like the trip survey so that a future phone using it needs no change here.
 */
export const PLACE_SURVEY_KEY = 'manual/place_user_input';
export const TRIP_ADDITION_KEY = 'manual/trip_addition_input';
export const PLACE_ADDITION_KEY = 'manual/place_addition_input';

/** Keys where one input per trip or place wins (the latest written). */
export const TRIP_SINGLE_KEYS: readonly string[] = [...MULTILABEL_KEYS, TRIP_SURVEY_KEY];
export const PLACE_SINGLE_KEYS: readonly string[] = [PLACE_SURVEY_KEY];
/** Every key the matcher reads: what the trip builder loads from the timeseries to label trips and places. */
export const USER_INPUT_KEYS: readonly string[] = [
  ...TRIP_SINGLE_KEYS,
  ...PLACE_SINGLE_KEYS,
  TRIP_ADDITION_KEY,
  PLACE_ADDITION_KEY,
];

export type InputFamily = 'trip' | 'place';
export type InputRole = 'single' | 'addition';

/** How an input key is matched: to trips or places, as one value or as one note among many. Undefined: never matched. */
export function inputKind(key: string): { family: InputFamily; role: InputRole } | undefined {
  if (TRIP_SINGLE_KEYS.includes(key)) return { family: 'trip', role: 'single' };
  if (key === TRIP_ADDITION_KEY) return { family: 'trip', role: 'addition' };
  if (PLACE_SINGLE_KEYS.includes(key)) return { family: 'place', role: 'single' };
  if (key === PLACE_ADDITION_KEY) return { family: 'place', role: 'addition' };
  return undefined;
}

/** `manual/mode_confirm` → `mode_confirm`: the field name inside `user_input`. */
export function inputName(key: string): string {
  return key.startsWith('manual/') ? key.slice('manual/'.length) : key;
}

export function isMultilabelKey(key: string): boolean {
  return (MULTILABEL_KEYS as readonly string[]).includes(key);
}

export function isDeleted(entry: UserInputEntry): boolean {
  return entry.data.status === 'DELETED';
}

/** A missing status counts as ACTIVE (older phones never set it). Any other status is neither kept nor deleting. */
export function isActive(entry: UserInputEntry): boolean {
  return entry.data.status === undefined || entry.data.status === 'ACTIVE';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The entry as a matchable input, or undefined when it lacks what matching reads (id, key, write time, start and
 * end). Stored entries come back as JSON text: this is the one check between `JSON.parse` and the matcher.
 */
export function readUserInputEntry(value: unknown): UserInputEntry | undefined {
  if (!isRecord(value) || !isRecord(value['_id']) || typeof value['_id']['$oid'] !== 'string') return undefined;
  const { metadata, data } = value;
  if (!isRecord(metadata) || typeof metadata['key'] !== 'string' || !isTime(metadata['write_ts'])) return undefined;
  if (!isRecord(data) || !isTime(data['start_ts']) || !isTime(data['end_ts'])) return undefined;
  return value as UserInputEntry;
}
