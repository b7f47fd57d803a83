import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors/index.js';
import { MAX_LABEL_CHARS, parseLabelGet, parseLabelOf, parseLabelUpdate } from './parse-custom-label-request.js';
import { parseProfileUpdate } from './parse-profile-update.js';

const KEYS: ReadonlySet<'mode' | 'purpose'> = new Set(['mode', 'purpose'] as const);

function field(parse: () => unknown): unknown {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).details['field'];
  }
  throw new Error('expected a ValidationError');
}

describe('custom label requests', () => {
  it('When the app sends its bodies, then they are read as typed requests', () => {
    expect(parseLabelGet({ user: 't', keys: ['mode', 'purpose', 'mode'] }, KEYS)).toEqual(['mode', 'purpose']);
    expect(parseLabelOf({ inserted_label: { key: 'mode', label: 'e_scooter' } }, 'inserted_label', KEYS)).toEqual({
      key: 'mode',
      label: 'e_scooter',
    });
    expect(
      parseLabelUpdate(
        { updated_label: { key: 'purpose', old_label: '', new_label: 'gym', is_new_label_must_added: true } },
        KEYS,
      ),
    ).toEqual({ key: 'purpose', oldLabel: null, newLabel: 'gym', addIfMissing: true });
  });

  it.each<[string, () => unknown, string]>([
    ['keys that are not a list', () => parseLabelGet({ keys: 'mode' }, KEYS), 'keys'],
    ['eleven keys', () => parseLabelGet({ keys: Array(11).fill('mode') }, KEYS), 'keys'],
    ['an unknown key', () => parseLabelGet({ keys: ['mode', 'colour'] }, KEYS), 'keys[1]'],
    [
      'a prototype key',
      () => parseLabelOf({ deleted_label: { key: '__proto__', label: 'x' } }, 'deleted_label', KEYS),
      'deleted_label.key',
    ],
    ['no inserted_label', () => parseLabelOf({}, 'inserted_label', KEYS), 'inserted_label'],
    [
      'an inherited inserted_label',
      () => parseLabelOf(Object.create({ inserted_label: {} }), 'inserted_label', KEYS),
      'inserted_label',
    ],
    [
      'a blank label',
      () => parseLabelOf({ inserted_label: { key: 'mode', label: '  ' } }, 'inserted_label', KEYS),
      'inserted_label.label',
    ],
    [
      'a long label',
      () =>
        parseLabelOf(
          { inserted_label: { key: 'mode', label: 'a'.repeat(MAX_LABEL_CHARS + 1) } },
          'inserted_label',
          KEYS,
        ),
      'inserted_label.label',
    ],
    [
      'a bidi override',
      () => parseLabelOf({ inserted_label: { key: 'mode', label: 'a\u202eb' } }, 'inserted_label', KEYS),
      'inserted_label.label',
    ],
    [
      'no is_new_label_must_added',
      () => parseLabelUpdate({ updated_label: { key: 'mode', new_label: 'x' } }, KEYS),
      'updated_label.is_new_label_must_added',
    ],
  ])('When a body has %s, then 400 naming the field', (_name, parse, expected) => {
    expect(field(parse)).toBe(expected);
  });

  it('When a label has exactly the longest length in code points, then it is taken', () => {
    const label = 'é'.repeat(MAX_LABEL_CHARS);
    expect(parseLabelOf({ inserted_label: { key: 'mode', label } }, 'inserted_label', KEYS).label).toBe(label);
  });
});

describe('parseProfileUpdate', () => {
  it('When update_doc carries user_id, then it is dropped; anything but an object is a 400', () => {
    expect(parseProfileUpdate({ update_doc: { user_id: 'x', curr_sync_interval: 3600 } })).toEqual({
      curr_sync_interval: 3600,
    });
    for (const update_doc of [null, [], 'x', undefined]) {
      expect(() => parseProfileUpdate({ update_doc })).toThrow(ValidationError);
    }
  });
});
