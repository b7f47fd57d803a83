import { expect } from 'vitest';
import type { RunningGateway } from './gateway.js';

/** What these helpers need of a gateway: one in this process or a server started elsewhere. */
type Poster = Pick<RunningGateway, 'post'>;
import { waitFor } from './test-env.js';

/** Puts `entries` in chunks as the app does, each answered 200. */
export async function pushEntries(gw: Poster, user: string, entries: unknown[], chunk = 500): Promise<void> {
  for (let i = 0; i < entries.length; i += chunk) {
    const res = await gw.post('/usercache/put', { user, phone_to_server: entries.slice(i, i + chunk) });
    expect(res.status).toBe(200);
  }
}

/** getTrips for one day, as the app calls it. */
export async function timeline(gw: Poster, user: string, day: string): Promise<any[]> {
  const res = await gw.post(`/timeline/getTrips/${day}`, { user });
  expect(res.status).toBe(200);
  return res.body.timeline;
}

/** What must be equal between two builds of the same data: bounds, distance, sections and their modes. */
export function tripShape(trips: any[]) {
  return trips.map((t) => ({
    id: t.id,
    start: t.properties.start_ts,
    end: t.properties.end_ts,
    distance: Math.round(t.properties.distance * 1000) / 1000,
    modes: t.features
      .filter((f: any) => f.type === 'FeatureCollection')
      .map((f: any) => f.features[0].properties.sensed_mode),
  }));
}

/** The day's trips once there are at least `expectedCount` and they have not changed for 1.5 s. */
export async function settledTrips(gw: Poster, user: string, day: string, expectedCount: number) {
  let last = '';
  let stableSince = 0;
  return waitFor(
    async () => {
      const trips = await timeline(gw, user, day);
      const now = JSON.stringify(tripShape(trips));
      if (now !== last) {
        last = now;
        stableSince = Date.now();
        return undefined;
      }
      return trips.length >= expectedCount && Date.now() - stableSince > 1500 ? trips : undefined;
    },
    90_000,
    `${expectedCount} stable trips for ${user} on ${day}`,
  );
}

/** The user's composite trips as the current app reads them (find_entries on data.end_ts), in start order. */
export async function compositeTrips(gw: Poster, user: string): Promise<any[]> {
  const res = await gw.post('/datastreams/find_entries/timestamp', {
    user,
    key_list: ['analysis/composite_trip'],
    key_time: 'data.end_ts',
    start_time: 0,
    end_time: 2_000_000_000,
  });
  expect(res.status).toBe(200);
  return (res.body.phone_data as any[]).sort((a, b) => a.data.start_ts - b.data.start_ts);
}

let inputClock = 1_900_000_000;
/**
 * A label, survey or note as the phone writes it: a `message` entry with its trip's or place's own times, written
 * later than anything before it.
 */
export function userInput(key: string, span: { start: number; end: number }, data: Record<string, unknown> = {}) {
  inputClock += 10;
  return {
    metadata: { key, type: 'message', platform: 'android', write_ts: inputClock, time_zone: 'America/Los_Angeles' },
    data: { start_ts: span.start, end_ts: span.end, ...data },
  };
}
