import { describe, expect, it } from 'vitest';
import type { TransitElement, TransitStopElement } from './osm-elements.js';
import { createTransitStopIndex } from './stop-index.js';
import { stopSearchBox } from './transit-stops.js';

const stop = (
  id: number,
  lon: number,
  lat: number,
  osmType: 'node' | 'way' = 'node',
  tags: Record<string, string> = { highway: 'bus_stop' },
): TransitStopElement => ({ kind: 'stop', osmType, id, lon, lat, tags });
const routeOver = (id: number, nodeIds: number[], tags: Record<string, string>): TransitElement => ({
  kind: 'route',
  id,
  tags,
  nodeIds,
});

describe('stopSearchBox', () => {
  it('When the radius is 150 m, then the box reaches ±0.00135° (e-mission’s metre-to-degree factor)', () => {
    const box = stopSearchBox([8.5, 47.4]);
    expect(box.maxLat - 47.4).toBeCloseTo(0.0013497, 7);
    expect(8.5 - box.minLon).toBeCloseTo(0.0013497, 7);
  });
});

describe('createTransitStopIndex', () => {
  it('When a stop is just inside or just outside the box, then it is found or not', () => {
    const index = createTransitStopIndex([stop(1, 8.5013, 47.4), stop(2, 8.4987, 47.4), stop(3, 8.5014, 47.4)]);
    expect(index.findStopsNear([8.5, 47.4]).map((s) => s.id)).toEqual([1, 2]);
    // The box is the same in degrees both ways, so a stop 0.0013° north is found too.
    expect(createTransitStopIndex([stop(4, 8.5, 47.4013)]).findStopsNear([8.5, 47.4])).toHaveLength(1);
  });
  it('When a node lists routes, then they are attached by ascending relation id, with their tags', () => {
    const index = createTransitStopIndex([
      routeOver(30, [1], { route: 'train', network: 'Regio', ref: 'S1', name: 'S1 North–South' }),
      stop(1, 8.5, 47.4),
      routeOver(20, [1, 1, 2], { route: 'bus', ref: '2' }),
    ]);
    expect(index.findStopsNear([8.5, 47.4])[0]?.routes).toEqual([
      { id: 20, route: 'bus', ref: '2' },
      { id: 30, route: 'train', network: 'Regio', ref: 'S1', name: 'S1 North–South' },
    ]);
  });
  it('When a way shares its id with a route member node, then the way still gets no route (only nodes do)', () => {
    const index = createTransitStopIndex([stop(7, 8.5, 47.4, 'way'), routeOver(20, [7], { route: 'bus' })]);
    expect(index.findStopsNear([8.5, 47.4])).toMatchObject([{ osmType: 'way', id: 7, routes: [] }]);
  });
  it('When stops are found, then nodes come before ways, each by ascending id (Overpass order)', () => {
    const index = createTransitStopIndex([stop(5, 8.5, 47.4, 'way'), stop(9, 8.5, 47.4), stop(2, 8.5, 47.4)]);
    expect(index.findStopsNear([8.5, 47.4]).map((s) => `${s.osmType}/${s.id}`)).toEqual(['node/2', 'node/9', 'way/5']);
  });
  it('When an element comes twice, then it counts once', () => {
    const index = createTransitStopIndex([
      stop(1, 8.5, 47.4),
      stop(1, 8.5, 47.4),
      routeOver(20, [1], { route: 'bus' }),
      routeOver(20, [1], { route: 'bus' }),
    ]);
    expect(index.size).toBe(1);
    expect(index.findStopsNear([8.5, 47.4])[0]?.routes).toHaveLength(1);
  });
  it('When the index is empty (no data for the region), then every search finds nothing', async () => {
    const index = createTransitStopIndex([]);
    expect(index.size).toBe(0);
    expect(await index.stopsNear([8.5, 47.4])).toEqual([]);
  });
});
