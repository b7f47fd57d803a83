import { describe, expect, it } from 'vitest';
import { collapseTransitModes, isBicyclingSpeed, isWalkingSpeed } from './collapse-modes.js';

const mode = (m: string) => ({ kind: 'mode', mode: m });

describe('speed limits', () => {
  it('When a speed is at the limit, then it still counts (walking up to 1.7 m/s, cycling up to 8.5 m/s)', () => {
    expect(isWalkingSpeed(1.7)).toBe(true);
    expect(isWalkingSpeed(1.7001)).toBe(false);
    expect(isBicyclingSpeed(8.5)).toBe(true);
    expect(isBicyclingSpeed(8.5001)).toBe(false);
  });
  it('When the speed is not a number (the median of no speeds), then it passes both tests, as in e-mission', () => {
    expect(isWalkingSpeed(NaN)).toBe(true);
    expect(isBicyclingSpeed(NaN)).toBe(true);
  });
});

describe('collapseTransitModes: one mode', () => {
  it('When the match is empty, then there is no mode', () => {
    expect(collapseTransitModes([], 5)).toEqual({ kind: 'none' });
  });
  it('When the match names one route type, then it is that type upper-cased', () => {
    expect(collapseTransitModes(['bus'], 20)).toEqual(mode('BUS'));
    expect(collapseTransitModes(['light_rail'], 20)).toEqual(mode('LIGHT_RAIL'));
    expect(collapseTransitModes(['subway'], 20)).toEqual(mode('SUBWAY'));
    expect(collapseTransitModes(['tram'], 20)).toEqual(mode('TRAM'));
    expect(collapseTransitModes(['train'], 20)).toEqual(mode('TRAIN'));
  });
  it('When the match names the same type several times, then that type, whatever the speed', () => {
    expect(collapseTransitModes(['train', 'train'], 2)).toEqual(mode('TRAIN'));
    expect(collapseTransitModes(['bus', 'bus', 'bus'], 30)).toEqual(mode('BUS'));
  });
});

describe('collapseTransitModes: the rail collapse', () => {
  it.each(['funicular', 'miniature', 'rail', 'railway', 'monorail', 'aerialway', 'tracks'])(
    'When the route type is %s, then the mode is TRAIN',
    (route) => {
      expect(collapseTransitModes([route], 20)).toEqual(mode('TRAIN'));
    },
  );
  it('When rail-like types mix with train, then they are one mode, TRAIN, and the speed is not asked', () => {
    expect(collapseTransitModes(['rail', 'train', 'monorail'], 3)).toEqual(mode('TRAIN'));
  });
  it('When the type is spelled with capitals, then it is not collapsed (e-mission compares as written)', () => {
    expect(collapseTransitModes(['Rail'], 20)).toEqual(mode('RAIL'));
  });
});

describe('collapseTransitModes: suspended routes', () => {
  it('When a route type carries :suspended or :SUSPENDED, then the suffix is ignored', () => {
    expect(collapseTransitModes(['bus:suspended'], 5)).toEqual(mode('BUS'));
    expect(collapseTransitModes(['rail:SUSPENDED'], 5)).toEqual(mode('TRAIN'));
    expect(collapseTransitModes(['bus:suspended', 'bus'], 20)).toEqual(mode('BUS'));
  });
});

describe('collapseTransitModes: the median-speed tie-break', () => {
  it('When bus and train both match at a speed a bicycle reaches (≤ 8.5 m/s), then BUS', () => {
    expect(collapseTransitModes(['train', 'bus'], 8.5)).toEqual(mode('BUS'));
    expect(collapseTransitModes(['train', 'bus'], 4)).toEqual(mode('BUS'));
  });
  it('When bus and train both match faster than 8.5 m/s, then the first mode other than BUS', () => {
    expect(collapseTransitModes(['bus', 'train'], 8.6)).toEqual(mode('TRAIN'));
    expect(collapseTransitModes(['bus', 'tram', 'subway'], 15)).toEqual(mode('TRAM'));
    expect(collapseTransitModes(['light_rail', 'bus'], 15)).toEqual(mode('LIGHT_RAIL'));
  });
  it('When the section has no speeds, then the tie-break says BUS (the NaN passes the cycling test)', () => {
    expect(collapseTransitModes(['bus', 'train'], NaN)).toEqual(mode('BUS'));
  });
  it('When two rail modes match slowly, then BUS, although no bus matched (as e-mission does)', () => {
    expect(collapseTransitModes(['SUBWAY', 'TRAIN'], 6)).toEqual(mode('BUS'));
    expect(collapseTransitModes(['SUBWAY', 'TRAIN'], 12)).toEqual(mode('SUBWAY'));
  });
  it('When two bus matches come first, then only one is taken out and BUS wins even at train speed', () => {
    expect(collapseTransitModes(['bus', 'bus', 'train'], 20)).toEqual(mode('BUS'));
    expect(collapseTransitModes(['bus', 'train', 'bus'], 20)).toEqual(mode('TRAIN'));
  });
});

describe('collapseTransitModes: modes the phone does not know', () => {
  it('When the one matched type is outside the phone modes, then it is returned as is for the caller to reject', () => {
    expect(collapseTransitModes(['ferry'], 5)).toEqual(mode('FERRY'));
    expect(collapseTransitModes(['trolleybus'], 5)).toEqual(mode('TROLLEYBUS'));
  });
  it('When several types match and one is not bus or rail, then the speed cannot choose', () => {
    expect(collapseTransitModes(['bus', 'ferry'], 5)).toEqual({ kind: 'undecidable', modes: ['BUS', 'FERRY'] });
    expect(collapseTransitModes(['trolleybus', 'bus'], 20)).toEqual({
      kind: 'undecidable',
      modes: ['TROLLEYBUS', 'BUS'],
    });
  });
});
