import { ValidationError } from '../../../shared/errors/index.js';
import { objectField, ownField } from './request-body.js';

/**
 * The bodies of `/customlabel/get|insert|update|delete` as typed requests (the app sends `{user, <name>: value}`,
 * through commHelper's postUserPersonalData); anything else is a ValidationError naming the field. `keys` is the
 * set of label keys a user may keep (the store's), so a key is one of them or a 400.
 */

/**
 * Longest label name, in characters (code points). The app's input field takes 25 (`phone:www/js/control/
 * CustomLabelSettingRow.tsx` maxLength) and turns spaces into underscores; labels are ids such as `e_scooter`.
 */
export const MAX_LABEL_CHARS = 100;

/** Most entries in a get's `keys`: the app sends two; a few repeats are tolerated, a long list is not a query. */
export const MAX_GET_KEYS = 10;

/**
 * Characters a label name may not hold: C0/C1 controls and DEL, lone surrogates (not storable as UTF-8), line and
 * paragraph separators, and the bidirectional overrides that make a label display as another.
 */
const FORBIDDEN_CHARS = /[\p{Cc}\p{Cs}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** `{keys: [key…]}`: the keys asked, each once. */
export function parseLabelGet<K extends string>(body: unknown, keys: ReadonlySet<K>): K[] {
  const asked = ownField(body, 'keys');
  if (!Array.isArray(asked))
    throw new ValidationError('keys must be a list of label keys', { details: { field: 'keys' } });
  if (asked.length > MAX_GET_KEYS)
    throw new ValidationError(`keys may hold at most ${MAX_GET_KEYS} entries`, {
      details: { field: 'keys', limit: MAX_GET_KEYS },
    });
  return [...new Set(asked.map((k, i) => labelKey(k, `keys[${i}]`, keys)))];
}

/** `{inserted_label: {key, label}}` or `{deleted_label: {key, label}}`. */
export function parseLabelOf<K extends string>(
  body: unknown,
  name: 'inserted_label' | 'deleted_label',
  keys: ReadonlySet<K>,
): { key: K; label: string } {
  const value = objectField(body, name);
  return {
    key: labelKey(ownField(value, 'key'), `${name}.key`, keys),
    label: labelName(ownField(value, 'label'), `${name}.label`),
  };
}

export interface LabelUpdate<K extends string> {
  key: K;
  /** The label renamed; null for none (e-mission's own test sends "" for that). */
  oldLabel: string | null;
  newLabel: string;
  /** `is_new_label_must_added`: add the new label if the old one is not there. */
  addIfMissing: boolean;
}

/** `{updated_label: {key, old_label, new_label, is_new_label_must_added}}`. */
export function parseLabelUpdate<K extends string>(body: unknown, keys: ReadonlySet<K>): LabelUpdate<K> {
  const updated = objectField(body, 'updated_label');
  const key = labelKey(ownField(updated, 'key'), 'updated_label.key', keys);
  const rawOld = ownField(updated, 'old_label');
  // e-mission's own test sends old_label "" for "no previous label"; null and absent mean the same here.
  const oldLabel =
    rawOld === undefined || rawOld === null ? null : labelName(rawOld, 'updated_label.old_label', { allowEmpty: true });
  const newLabel = labelName(ownField(updated, 'new_label'), 'updated_label.new_label');
  const addIfMissing = ownField(updated, 'is_new_label_must_added');
  if (typeof addIfMissing !== 'boolean')
    throw new ValidationError('updated_label.is_new_label_must_added must be true or false', {
      details: { field: 'updated_label.is_new_label_must_added' },
    });
  return { key, oldLabel: oldLabel || null, newLabel, addIfMissing };
}

function labelKey<K extends string>(value: unknown, path: string, keys: ReadonlySet<K>): K {
  if (typeof value !== 'string' || !(keys as ReadonlySet<string>).has(value))
    throw new ValidationError(`${path} must be one of ${[...keys].join(', ')}`, { details: { field: path } });
  return value as K;
}

/** A label name: a non-blank string of at most MAX_LABEL_CHARS characters, none of them FORBIDDEN_CHARS. */
function labelName(value: unknown, path: string, { allowEmpty = false } = {}): string {
  if (typeof value !== 'string') throw new ValidationError(`${path} must be a string`, { details: { field: path } });
  if (value.trim() === '' && !(allowEmpty && value === ''))
    throw new ValidationError(`${path} must not be empty`, { details: { field: path } });
  // Length first, on UTF-16 units (at least the code points), so the regex never scans an oversized string.
  if (value.length > 2 * MAX_LABEL_CHARS || [...value].length > MAX_LABEL_CHARS)
    throw new ValidationError(`${path} is longer than ${MAX_LABEL_CHARS} characters`, {
      details: { field: path, limit: MAX_LABEL_CHARS },
    });
  if (FORBIDDEN_CHARS.test(value))
    throw new ValidationError(`${path} holds control or non-printable characters`, { details: { field: path } });
  return value;
}
