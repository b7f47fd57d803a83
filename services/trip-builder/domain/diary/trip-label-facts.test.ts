import { describe, expect, it } from 'vitest';
import { loadRealDay } from '../../../../test/helpers/real-days.js';
import { toObservations } from '../observations.js';
import { buildTrips } from '../timeline/build-trips.js';
import { type CompositeTripEntry, tripToCompositeEntry } from './composite-trip.js';
import { dominantSensedMode, tripLabelFacts, UNLABELED } from './trip-label-facts.js';

const USER = '0763de67-f61e-3f5d-90e7-518e69793954';
const trips = buildTrips(toObservations(loadRealDay('shankari_2015-aug-27')), undefined).trips;
const NONE = { user_input: {}, additions: [] };
const labelled = (i: number, userInput: Record<string, unknown>) =>
  tripToCompositeEntry(USER, trips[i]!, {
    previous: trips[i - 1],
    next: trips[i + 1],
    labels: { trip: { user_input: userInput as never, additions: [] }, startPlace: NONE, endPlace: NONE },
  });

describe('trip label facts', () => {
  it('When trips carry no labels, then every label dimension is UNLABELED and mode is the dominant sensed mode', () => {
    const composites = trips.map((t, i) =>
      tripToCompositeEntry(USER, t, { previous: trips[i - 1], next: trips[i + 1] }),
    );
    const facts = tripLabelFacts(composites);
    expect(facts).toHaveLength(composites.length);
    facts.forEach((f, i) => {
      const d = composites[i]!.data as any;
      expect(f).toMatchObject({
        localDate: String(d.start_fmt_time).slice(0, 10),
        startTs: d.start_ts,
        modeConfirm: UNLABELED,
        purposeConfirm: UNLABELED,
        replacedModeConfirm: UNLABELED,
        distance: d.distance,
        duration: d.duration,
        responded: false,
        answeredSurvey: undefined,
      });
      expect(f.localDate).toBe('2015-08-27');
      expect(f.mode).toBe(dominantSensedMode(d.cleaned_section_summary));
      expect(Object.keys(d.cleaned_section_summary.distance)).toContain(f.mode);
    });
  });

  it('When a trip is labelled, then its labels are the dimension values, the mode label wins over sensing, and a survey answer counts as a response', () => {
    const [a, b, c] = tripLabelFacts([
      labelled(0, { mode_confirm: 'e-bike', purpose_confirm: 'work', replaced_mode: 'car' }),
      labelled(1, { purpose_confirm: 'shopping' }),
      labelled(2, { trip_user_input: { data: { name: 'TripConfirmSurvey' } } }),
    ]);
    expect(a).toMatchObject({
      modeConfirm: 'e-bike',
      purposeConfirm: 'work',
      replacedModeConfirm: 'car',
      mode: 'e-bike',
      responded: true,
    });
    expect(b).toMatchObject({ modeConfirm: UNLABELED, purposeConfirm: 'shopping', responded: true });
    expect(b!.mode).not.toBe(UNLABELED);
    expect(c).toMatchObject({ modeConfirm: UNLABELED, responded: true, answeredSurvey: 'TripConfirmSurvey' });
  });

  it('When a composite comes from an untracked period, then it is not a trip and has no row', () => {
    const untracked = labelled(0, {}) as CompositeTripEntry;
    const copy = { ...untracked, metadata: { ...untracked.metadata, origin_key: 'analysis/confirmed_untracked' } };
    expect(tripLabelFacts([copy])).toEqual([]);
  });

  it('When sections tie or are missing, then the first greatest distance wins and no summary gives no mode', () => {
    expect(dominantSensedMode({ distance: { WALKING: 10, BICYCLING: 30, CAR: 30 } })).toBe('BICYCLING');
    expect(dominantSensedMode({ distance: {} })).toBeUndefined();
    expect(dominantSensedMode(undefined)).toBeUndefined();
  });
});
