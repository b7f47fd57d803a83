/** e-mission's mode enums are shared records (shared/events/emission-enums.ts); the modes' code reads them from here. */
export {
  isPredictedModeName,
  type MotionTypeName,
  motionTypeName,
  type PredictedModeName,
  PredictedModeType,
} from '../../../../shared/events/emission-enums.js';
