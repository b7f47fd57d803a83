import { MotionType } from '../../../../shared/events/emission-enums.js';

/**
 * e-mission's PredictedModeTypes (`emission/core/wrapper/modeprediction.py`): the modes people recognise, as the
 * phone shows them. An inferred section's `sensed_mode` holds the number; composite trips also carry the name.
 */
export const PredictedModeType = {
  UNKNOWN: 0,
  WALKING: 1,
  BICYCLING: 2,
  BUS: 3,
  TRAIN: 4,
  CAR: 5,
  AIR_OR_HSR: 6,
  SUBWAY: 7,
  TRAM: 8,
  LIGHT_RAIL: 9,
} as const;

export type PredictedModeName = keyof typeof PredictedModeType;

/** The names of e-mission's MotionTypes, the modes the phone senses (IN_VEHICLE, ON_FOOT, …). */
export type MotionTypeName = keyof typeof MotionType;

export function isPredictedModeName(name: string): name is PredictedModeName {
  return Object.hasOwn(PredictedModeType, name);
}

/** The MotionTypes name for a stored `sensed_mode` number; undefined for a number e-mission never sends. */
export function motionTypeName(value: number): MotionTypeName | undefined {
  return (Object.keys(MotionType) as MotionTypeName[]).find((name) => MotionType[name] === value);
}
