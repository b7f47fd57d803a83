import { it } from 'vitest';
import { modeName } from '../diary/trip-geojson.js';
import { toObservations } from '../observations.js';
import { loadGroundTruth, loadRealDay, REAL_DAYS } from '../../../../test/helpers/real-days.js';
import { buildTrips } from './build-trips.js';
import { scoreDay } from '../../../../test/helpers/evaluate-trips.js';
it('score', () => {
  let e = 0, m = 0, s = 0, r = 0;
  for (const day of REAL_DAYS) {
    const gt = loadGroundTruth(day).map((t) => ({ startTs: t.properties['start_ts'], endTs: t.properties['end_ts'], startLoc: t.properties['start_loc'].coordinates, endLoc: t.properties['end_loc'].coordinates, modes: t.features.filter((f) => f.type === 'FeatureCollection').map((f) => String(f.features[0].properties.sensed_mode).split('.')[1]!) }));
    const built = buildTrips(toObservations(loadRealDay(day)), undefined).trips;
    const sc = scoreDay(built.map((t) => ({ ...t, modeNames: t.sections.map((x) => modeName(x.mode)) })), gt);
    console.log(day, JSON.stringify({ expected: sc.expected, matched: sc.matchedExpected, returned: sc.returned, same: sc.sameSections }));
    e += sc.expected; m += sc.matchedExpected; s += sc.sameSections; r += sc.returned;
  }
  console.log('TOTAL', { e, m, r, s });
});
