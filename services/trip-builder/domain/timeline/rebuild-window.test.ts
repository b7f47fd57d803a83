import { describe, expect, it } from 'vitest';
import { toObservations, type TimeseriesLike } from '../observations.js';
import { loadRealDay, REAL_DAYS } from '../../../../test/helpers/real-days.js';
import { type BuiltTrip, buildTrips, type ResumePoint } from './build-trips.js';
import { planRebuild } from './rebuild-window.js';

/** Feeds a day to the builder in batches the way the service does, keeping only what the service keeps. */
function buildInBatches(batches: TimeseriesLike[][]): BuiltTrip[] {
  let stored: BuiltTrip[] = [];
  let resume: ResumePoint | undefined;
  const seen: TimeseriesLike[] = [];
  for (const batch of batches) {
    seen.push(...batch);
    const earliest = Math.min(...batch.map((e) => Number(e.data['ts'] ?? Infinity)));
    const window = planRebuild(resume, stored, earliest);
    const obs = toObservations(seen.filter((e) => Number(e.data['ts']) >= window.fromTs));
    const built = buildTrips(obs, window.place);
    stored = [...stored.filter((t) => t.rawStartTs < window.fromTs), ...built.trips];
    resume = built.resume ?? resume;
  }
  return stored;
}

const summary = (trips: BuiltTrip[]) =>
  trips.map((t) => [t.startTs, t.endTs, t.distance, t.sections.map((s) => s.mode)]);

describe('incremental rebuild', () => {
  it.each(REAL_DAYS)('%s: any split in two batches (by write_ts) gives the trips of one build', (day) => {
    const entries = loadRealDay(day).sort((a, b) => a.metadata.write_ts - b.metadata.write_ts);
    const whole = summary(buildTrips(toObservations(entries), undefined).trips);
    for (let k = 1; k < 10; k++) {
      const cut = Math.floor((entries.length * k) / 10);
      const split = summary(buildInBatches([entries.slice(0, cut), entries.slice(cut)]));
      expect(split, `split at ${k}/10`).toEqual(whole);
    }
  });

  it('a late batch of old data re-opens the window it falls in', () => {
    const entries = loadRealDay('shankari_2015-aug-27').sort((a, b) => a.metadata.write_ts - b.metadata.write_ts);
    const whole = summary(buildTrips(toObservations(entries), undefined).trips);
    const late = entries.filter((_, i) => i % 7 === 3);
    const onTime = entries.filter((_, i) => i % 7 !== 3);
    expect(summary(buildInBatches([onTime, late]))).toEqual(whole);
  });
});
