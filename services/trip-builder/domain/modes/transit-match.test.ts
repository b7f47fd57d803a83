import { describe, expect, it } from 'vitest';
import { busStop, fakeStop, railStation, route } from '../../../../test/helpers/trip-builder/fake-stops.js';
import { matchTransitRoutes } from './transit-match.js';

describe('matchTransitRoutes: 1. the same route at both ends', () => {
  it('When one route relation calls at both ends, then its route type, once per matching pair', () => {
    const line = route(54321, 'bus', 'RTD');
    expect(matchTransitRoutes([busStop(1, [line])], [busStop(2, [line])])).toEqual({
      rule: 'same-route',
      routes: ['bus'],
    });
    // Two stops of the line at the start: two pairs, two entries.
    expect(matchTransitRoutes([busStop(1, [line]), busStop(3, [line])], [busStop(2, [line])])?.routes).toEqual([
      'bus',
      'bus',
    ]);
  });
  it('When the ends share nothing but each has a route, then no route match', () => {
    const match = matchTransitRoutes([busStop(1, [route(1, 'bus', 'X')])], [busStop(2, [route(2, 'bus', 'X')])]);
    expect(match).toBeUndefined();
  });
  it('When two rail routes of the same type and network serve the ends, then they count as one line', () => {
    const north = railStation(1, ['train'], [route(100, 'train', 'Regio')]);
    const southbound = railStation(2, ['train'], [route(101, 'train', 'Regio')]);
    // "train" is not one of e-mission's rail route types (rail, light_rail, subway…), so only the id counts…
    expect(matchTransitRoutes([north], [southbound])?.rule).toBe('rail-at-both-ends');
    // …while two subway relations (one per direction) of one network match.
    const a = fakeStop(3, {}, [route(200, 'subway', 'Metro')]);
    const b = fakeStop(4, {}, [route(201, 'subway', 'Metro')]);
    expect(matchTransitRoutes([a], [b])).toEqual({ rule: 'same-route', routes: ['subway'] });
  });
  it('When rail routes of one type lack a network or differ in it, then they do not match', () => {
    const a = fakeStop(3, {}, [route(200, 'light_rail')]);
    const b = fakeStop(4, {}, [route(201, 'light_rail')]);
    expect(matchTransitRoutes([a], [b])).toBeUndefined();
    const c = fakeStop(5, {}, [route(202, 'light_rail', 'One')]);
    const d = fakeStop(6, {}, [route(203, 'light_rail', 'Two')]);
    expect(matchTransitRoutes([c], [d])).toBeUndefined();
  });
  it('When buses of one network serve the ends on different routes, then the network alone does not match', () => {
    const match = matchTransitRoutes([busStop(1, [route(1, 'bus', 'RTD')])], [busStop(2, [route(2, 'bus', 'RTD')])]);
    expect(match).toBeUndefined();
  });
  it('When several routes match, then they come in start-route order, each paired with every end route', () => {
    const bus = route(10, 'bus');
    const train = route(20, 'train');
    const start = [busStop(1, [bus]), railStation(2, ['train'], [train])];
    const end = [railStation(3, ['train'], [train]), busStop(4, [bus])];
    expect(matchTransitRoutes(start, end)?.routes).toEqual(['bus', 'train']);
  });
});

describe('matchTransitRoutes: 2. rail stops at both ends', () => {
  it('When both ends have rail stops without a common route, then the rail modes both ends share', () => {
    const start = [railStation(1, ['subway', 'train'])];
    const end = [railStation(2, ['train', 'tram'])];
    expect(matchTransitRoutes(start, end)).toEqual({ rule: 'rail-at-both-ends', routes: ['TRAIN'] });
  });
  it('When a mode key has any value, then it counts (e-mission tests only that the key is there)', () => {
    const start = [fakeStop(1, { railway: 'tram_stop', tram: 'no' })];
    const end = [fakeStop(2, { railway: 'platform', tram: 'yes', light_rail: 'yes' })];
    expect(matchTransitRoutes(start, end)?.routes).toEqual(['TRAM']);
  });
  it('When a mode key is on a stop without a railway tag, then it is not a rail stop', () => {
    expect(matchTransitRoutes([fakeStop(1, { train: 'yes' })], [railStation(2, ['train'])])).toBeUndefined();
  });
  it('When both ends are rail stops of different modes, then the match is empty and route_ref is not tried', () => {
    const start = [railStation(1, ['subway']), busStop(3, [], { route_ref: '5' })];
    const end = [railStation(2, ['tram']), busStop(4, [], { route_ref: '5' })];
    expect(matchTransitRoutes(start, end)).toEqual({ rule: 'rail-at-both-ends', routes: [] });
  });
  it('When a route matches too, then the route match wins', () => {
    const line = route(7, 'tram');
    const start = [railStation(1, ['train'], [line])];
    const end = [railStation(2, ['train'], [line])];
    expect(matchTransitRoutes(start, end)).toEqual({ rule: 'same-route', routes: ['tram'] });
  });
});

describe('matchTransitRoutes: 3. bus lines named in route_ref', () => {
  it('When bus stops at both ends name a common line, then bus, once per common pair', () => {
    const start = [busStop(1, [], { route_ref: '7;8' })];
    const end = [busStop(2, [], { route_ref: '8;9' })];
    expect(matchTransitRoutes(start, end)).toEqual({ rule: 'route-ref', routes: ['bus'] });
    const both = [busStop(3, [], { route_ref: '7;8' })];
    expect(matchTransitRoutes(start, both)?.routes).toEqual(['bus', 'bus']);
  });
  it('When the lines are written with spaces, then they are compared as written', () => {
    const start = [busStop(1, [], { route_ref: '7; 8' })];
    const end = [busStop(2, [], { route_ref: '8;9' })];
    expect(matchTransitRoutes(start, end)).toBeUndefined();
  });
  it('When the route_ref is on a stop that is not a bus stop, then it is ignored', () => {
    const start = [fakeStop(1, { public_transport: 'platform', route_ref: '8' })];
    const end = [busStop(2, [], { route_ref: '8' })];
    expect(matchTransitRoutes(start, end)).toBeUndefined();
  });
});

describe('matchTransitRoutes: e-mission test vectors (TestMatchStopsWithMockData)', () => {
  const zephyr = route(98765, 'train', 'Amtrak');
  const denver = railStation(67890, [], [zephyr]);
  const grandJunction = railStation(13579, [], [zephyr]);
  const nrelBus = busStop(12345, [route(54321, 'bus', 'RTD')]);

  it('When Denver Union Station and Grand Junction share the California Zephyr, then train', () => {
    expect(matchTransitRoutes([denver], [grandJunction])).toEqual({ rule: 'same-route', routes: ['train'] });
  });
  it('When both directions of the Zephyr call at both stations (TestOverpass, live data), then train twice', () => {
    const westbound = route(98766, 'train', 'Amtrak');
    const start = [railStation(67890, ['train'], [zephyr, westbound])];
    const end = [railStation(13579, ['train'], [zephyr, westbound])];
    expect(matchTransitRoutes(start, end)?.routes).toEqual(['train', 'train']);
  });
  it('When a bus stop faces an end with no stops, then no match', () => {
    expect(matchTransitRoutes([nrelBus], [])).toBeUndefined();
  });
  it('When both ends have the bus stop and the station, then bus and train match, bus first', () => {
    expect(matchTransitRoutes([nrelBus, denver], [nrelBus, denver])?.routes).toEqual(['bus', 'train']);
  });
});
