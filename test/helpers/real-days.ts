import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emissionFixturesDir } from './fixtures.js';
import type { TimeseriesLike } from '../../services/trip-builder/domain/observations.js';

export const REAL_DAYS = [
  'shankari_2015-aug-27',
  'shankari_2015-08-23',
  'shankari_2016-08-10',
  'gabe_2016-06-15',
  'iphone_2016-02-22',
] as const;

export function loadRealDay(name: string): TimeseriesLike[] {
  return JSON.parse(
    readFileSync(join(emissionFixturesDir(), 'emission-real-days', `${name}.json`), 'utf8'),
  ) as TimeseriesLike[];
}

export interface GroundTruthTrip {
  properties: Record<string, any>;
  features: any[];
}

export function loadGroundTruth(name: string): GroundTruthTrip[] {
  const raw = JSON.parse(
    readFileSync(join(emissionFixturesDir(), 'emission-real-days', `${name}.ground_truth.json`), 'utf8'),
  );
  return raw.data as GroundTruthTrip[];
}

/** The local date each real day's trips fall on. */
export const DAY_OF: Record<(typeof REAL_DAYS)[number], string> = {
  'shankari_2015-aug-27': '2015-08-27',
  'shankari_2015-08-23': '2015-08-23',
  'shankari_2016-08-10': '2016-08-10',
  'gabe_2016-06-15': '2016-06-15',
  'iphone_2016-02-22': '2016-02-22',
};

/** The day's entries as a phone pushes them: no server ids, in write order. */
export function phoneEntries(name: string): { metadata: TimeseriesLike['metadata']; data: TimeseriesLike['data'] }[] {
  return loadRealDay(name)
    .map(({ metadata, data }) => ({ metadata, data }))
    .sort((a, b) => a.metadata.write_ts - b.metadata.write_ts);
}
