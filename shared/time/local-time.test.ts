import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoLocal, localDate, localDateByIntl } from './local-time.js';

const ZONES = [
  'America/Los_Angeles',
  'America/Denver',
  'America/St_Johns',
  'Europe/Paris',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'UTC',
];

describe('local time', () => {
  it('When any instant from 1990 to 2040 is read in zones with DST, half-hour and quarter-hour offsets, then the remembered offsets give what Intl gives', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 631152000, max: 2208988800, noNaN: true }),
        fc.constantFrom(...ZONES),
        (ts, zone) => {
          expect(localDate(ts, zone)).toEqual(localDateByIntl(ts, zone));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('When instants straddle a DST change, then each side has its own offset', () => {
    // 2015-03-08 10:00:00 UTC is 03:00 PDT; one second earlier is 01:59:59 PST.
    expect(isoLocal(1425808799, 'America/Los_Angeles')).toBe('2015-03-08T01:59:59-08:00');
    expect(isoLocal(1425808800, 'America/Los_Angeles')).toBe('2015-03-08T03:00:00-07:00');
    // St John's moves at 02:00 local, 05:30 UTC: a half-hour boundary.
    expect(isoLocal(1425792599, 'America/St_Johns')).toBe('2015-03-08T01:59:59-03:30');
    expect(isoLocal(1425792600, 'America/St_Johns')).toBe('2015-03-08T03:00:00-02:30');
    // Until 2011 it moved at 00:01 local, inside a UTC quarter-hour: 1994-04-03 03:31 UTC.
    expect(isoLocal(765343859, 'America/St_Johns')).toBe('1994-04-03T00:00:59-03:30');
    expect(isoLocal(765343860, 'America/St_Johns')).toBe('1994-04-03T01:01:00-02:30');
  });

  it('When a zone is unknown, then there is no local date', () => {
    expect(localDate(1440688707, 'Mars/Olympus_Mons')).toBeUndefined();
  });
});
