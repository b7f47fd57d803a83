import { describe, expect, it } from 'vitest';
import { obsoleteKeys, recentDays } from './usercache-documents.js';

describe('usercache diary documents', () => {
  it('removes every key but the ones just written and the retained configs, common-trips included', () => {
    const existing = [
      'diary/trips-2015-08-20',
      'diary/trips-2015-08-27',
      'common-trips',
      'config/consent',
      'config/sensor_config',
    ];
    expect(obsoleteKeys(existing, ['diary/trips-2015-08-27'])).toEqual(['diary/trips-2015-08-20', 'common-trips']);
  });

  it('keeps the seven days up to the latest', () => {
    expect(recentDays(['2015-08-20', '2015-08-21', '2015-08-27', '2015-08-28'], '2015-08-27')).toEqual([
      '2015-08-21',
      '2015-08-27',
    ]);
  });
});
