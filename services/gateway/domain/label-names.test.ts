import { describe, expect, it } from 'vitest';
import { labelNames } from './label-names.js';

describe('label names', () => {
  it('When the label options translate a value, then that is its name; else it is spelled out from the value', () => {
    const options = { MODE: [{ value: 'walk' }], translations: { en: { walk: 'Walk', work: 'To work' } } };
    expect(labelNames(['walk', 'work', 'e-bike', 'drove_alone', 'UNLABELED'], options)).toEqual([
      { value: 'walk', name: 'Walk' },
      { value: 'work', name: 'To work' },
      { value: 'e-bike', name: 'E-bike' },
      { value: 'drove_alone', name: 'Drove alone' },
      { value: 'UNLABELED', name: 'Not labelled' },
    ]);
  });

  it('When the label options are a web address or a value names an inherited property, then the value is spelled out', () => {
    expect(labelNames(['constructor', '__proto__'], 'https://example.org/labels.json')).toEqual([
      { value: 'constructor', name: 'Constructor' },
      { value: '__proto__', name: 'Proto' },
    ]);
    expect(labelNames(['toString'], { translations: { en: {} } })).toEqual([{ value: 'toString', name: 'ToString' }]);
  });
});
