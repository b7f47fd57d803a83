import type { TransitRoute, TransitStop } from '../../../services/trip-builder/domain/modes/transit-stops.js';

/** Stops for tests, positioned nowhere in particular: the match reads only tags and routes. */
export function fakeStop(
  id: number,
  tags: Record<string, string>,
  routes: readonly TransitRoute[] = [],
  osmType: TransitStop['osmType'] = 'node',
): TransitStop {
  return { osmType, id, lon: 0, lat: 0, tags, routes };
}

export const busStop = (id: number, routes: readonly TransitRoute[] = [], extra: Record<string, string> = {}) =>
  fakeStop(id, { highway: 'bus_stop', ...extra }, routes);

export const railStation = (id: number, modes: readonly string[], routes: readonly TransitRoute[] = []) =>
  fakeStop(id, { railway: 'station', ...Object.fromEntries(modes.map((m) => [m, 'yes'])) }, routes);

export const route = (id: number, type: string, network?: string): TransitRoute =>
  network === undefined ? { id, route: type } : { id, route: type, network };
