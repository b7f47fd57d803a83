/**
 * Domain assumptions (e-mission's `domain_assumptions.py`). Both tests are written "not faster than", so a speed
 * that is not a number (the median of no speeds) passes them: e-mission calls such a section walking, or a bus.
 */
export const WALKING_SPEED_MAX_MS = 1.7;
export const BICYCLING_SPEED_MAX_MS = 8.5;

export function isWalkingSpeed(speed: number): boolean {
  return !(speed > WALKING_SPEED_MAX_MS);
}

export function isBicyclingSpeed(speed: number): boolean {
  return !(speed > BICYCLING_SPEED_MAX_MS);
}

/** Route types the phone shows as plain TRAIN; other values are upper-cased (light_rail → LIGHT_RAIL). */
const COLLAPSED_TO_TRAIN: ReadonlySet<string> = new Set([
  'funicular',
  'miniature',
  'rail',
  'railway',
  'monorail',
  'aerialway',
  'tracks',
]);

/** The modes between which the median speed may choose when a match names several. */
const SPEED_DECIDABLE: ReadonlySet<string> = new Set(['BUS', 'TRAIN', 'LIGHT_RAIL', 'SUBWAY', 'TRAM']);

export type CollapsedModes =
  | { kind: 'none' }
  /** One mode name, upper-case; not necessarily a PredictedModeTypes name (FERRY, TROLLEYBUS…). */
  | { kind: 'mode'; mode: string }
  /** Several modes, not all of which the speed can choose between. */
  | { kind: 'undecidable'; modes: readonly string[] };

/**
 * One mode from the route values a transit match gave (e-mission's `collapse_modes`): seasonal suspensions are
 * ignored, rail-like route types become TRAIN, and when the match names several modes, a median speed a bicycle
 * could reach says BUS, a faster one the first mode listed after the first BUS is taken out.
 */
export function collapseTransitModes(routes: readonly string[], medianSpeed: number): CollapsedModes {
  if (routes.length === 0) return { kind: 'none' };
  const modes = routes.map(modeOfRoute);
  const distinct = [...new Set(modes)];
  if (distinct.length === 1) return { kind: 'mode', mode: distinct[0]! };
  if (!distinct.every((m) => SPEED_DECIDABLE.has(m))) return { kind: 'undecidable', modes: distinct };
  if (isBicyclingSpeed(medianSpeed)) return { kind: 'mode', mode: 'BUS' };
  // e-mission removes one BUS only: with two bus matches listed first, BUS still wins at train speeds.
  const withoutOneBus = [...modes];
  const firstBus = withoutOneBus.indexOf('BUS');
  if (firstBus >= 0) withoutOneBus.splice(firstBus, 1);
  return { kind: 'mode', mode: withoutOneBus[0]! };
}

function modeOfRoute(route: string): string {
  const running = route.replaceAll(':suspended', '').replaceAll(':SUSPENDED', '');
  return COLLAPSED_TO_TRAIN.has(running) ? 'TRAIN' : running.toUpperCase();
}
