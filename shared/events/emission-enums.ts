/** e-mission's enums (emission/core/wrapper/{transition,motionactivity}.py), values as stored. */
export const MotionType = {
  IN_VEHICLE: 0,
  BICYCLING: 1,
  ON_FOOT: 2,
  STILL: 3,
  UNKNOWN: 4,
  TILTING: 5,
  WALKING: 7,
  RUNNING: 8,
  NONE: 9,
  STOPPED_WHILE_IN_VEHICLE: 10,
  AIR_OR_HSR: 11,
} as const;

/** The names of e-mission's MotionTypes, the modes the phone senses (IN_VEHICLE, ON_FOOT, …). */
export type MotionTypeName = keyof typeof MotionType;

/** The MotionTypes name for a stored `sensed_mode` number; undefined for a number e-mission never sends. */
export function motionTypeName(value: number): MotionTypeName | undefined {
  return (Object.keys(MotionType) as MotionTypeName[]).find((name) => MotionType[name] === value);
}

/** A sensed mode as the phone app and e-mission's exports show it: the MotionTypes name, UNKNOWN for any other number. */
export function sensedModeName(mode: number): string {
  return motionTypeName(mode) ?? 'UNKNOWN';
}

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

export function isPredictedModeName(name: string): name is PredictedModeName {
  return Object.hasOwn(PredictedModeType, name);
}

export const State = { START: 0, WAITING_FOR_TRIP_START: 1, ONGOING_TRIP: 2, TRACKING_STOPPED: 3 } as const;

export const Transition = {
  INITIALIZE: 0,
  EXITED_GEOFENCE: 1,
  STOPPED_MOVING: 2,
  STOP_TRACKING: 3,
  BOOTED: 4,
  INIT_COMPLETE: 5,
  TRIP_STARTED: 6,
  RECEIVED_SILENT_PUSH: 7,
  TRIP_END_DETECTED: 8,
  TRIP_RESTARTED: 9,
  END_TRIP_TRACKING: 10,
  TRACKING_STOPPED: 11,
  NOP: 12,
  VISIT_STARTED: 13,
  VISIT_ENDED: 14,
  NONE: 15,
  DATA_PUSHED: 16,
  START_TRACKING: 17,
  TRACKING_ERROR: 18,
  BLE_BEACON_FOUND: 18,
  BLE_BEACON_LOST: 19,
} as const;

/**
 * The state a transition leaves the phone in. A recorded transition's `curr_state` is the state the phone was in when
 * the transition came (the real days show `EXITED_GEOFENCE` with WAITING_FOR_TRIP_START, `STOPPED_MOVING` with
 * ONGOING_TRIP), so the state after it follows from the transition; one that changes nothing keeps `currState`.
 */
export function stateAfterTransition(currState: number, transition: number): number {
  switch (transition) {
    case Transition.EXITED_GEOFENCE:
    case Transition.TRIP_STARTED:
    case Transition.TRIP_RESTARTED:
      return State.ONGOING_TRIP;
    case Transition.STOPPED_MOVING:
    case Transition.END_TRIP_TRACKING:
    case Transition.INIT_COMPLETE:
      return State.WAITING_FOR_TRIP_START;
    case Transition.STOP_TRACKING:
    case Transition.TRACKING_STOPPED:
      return State.TRACKING_STOPPED;
    case Transition.START_TRACKING:
      return State.START;
    default:
      return currState;
  }
}

/** Phone state strings: Android `local.state.*`, iOS `STATE_*`. */
export const stateByName: Record<string, number> = {
  'local.state.start': State.START,
  'local.state.waiting_for_trip_start': State.WAITING_FOR_TRIP_START,
  'local.state.ongoing_trip': State.ONGOING_TRIP,
  'local.state.tracking_stopped': State.TRACKING_STOPPED,
  STATE_START: State.START,
  STATE_WAITING_FOR_TRIP_START: State.WAITING_FOR_TRIP_START,
  STATE_ONGOING_TRIP: State.ONGOING_TRIP,
  STATE_TRACKING_STOPPED: State.TRACKING_STOPPED,
};

/** Phone transition strings: Android `local.transition.*` and `booted`, iOS `T_*`. */
export const transitionByName: Record<string, number> = {
  'local.transition.initialize': Transition.INITIALIZE,
  'local.transition.exited_geofence': Transition.EXITED_GEOFENCE,
  'local.transition.stopped_moving': Transition.STOPPED_MOVING,
  'local.transition.stop_tracking': Transition.STOP_TRACKING,
  'local.transition.start_tracking': Transition.START_TRACKING,
  'local.transition.ble_beacon_found': Transition.BLE_BEACON_FOUND,
  'local.transition.ble_beacon_lost': Transition.BLE_BEACON_LOST,
  'local.transition.tracking_error': Transition.TRACKING_ERROR,
  booted: Transition.BOOTED,
  T_INITIALIZE: Transition.INITIALIZE,
  T_INIT_COMPLETE: Transition.INIT_COMPLETE,
  T_EXITED_GEOFENCE: Transition.EXITED_GEOFENCE,
  T_TRIP_STARTED: Transition.TRIP_STARTED,
  T_RECEIVED_SILENT_PUSH: Transition.RECEIVED_SILENT_PUSH,
  T_TRIP_END_DETECTED: Transition.TRIP_END_DETECTED,
  T_TRIP_RESTARTED: Transition.TRIP_RESTARTED,
  T_END_TRIP_TRACKING: Transition.END_TRIP_TRACKING,
  T_DATA_PUSHED: Transition.DATA_PUSHED,
  T_TRIP_ENDED: Transition.STOPPED_MOVING,
  T_FORCE_STOP_TRACKING: Transition.STOP_TRACKING,
  T_TRACKING_STOPPED: Transition.TRACKING_STOPPED,
  T_VISIT_STARTED: Transition.VISIT_STARTED,
  T_VISIT_ENDED: Transition.VISIT_ENDED,
  T_BLE_BEACON_FOUND: Transition.BLE_BEACON_FOUND,
  T_BLE_BEACON_LOST: Transition.BLE_BEACON_LOST,
  T_NOP: Transition.NOP,
  T_START_TRACKING: Transition.START_TRACKING,
};

/** iOS motion flags to the motion enum. */
export const motionByIosFlag: Record<string, number> = {
  stationary: MotionType.STILL,
  walking: MotionType.WALKING,
  running: MotionType.RUNNING,
  cycling: MotionType.BICYCLING,
  automotive: MotionType.IN_VEHICLE,
  unknown: MotionType.UNKNOWN,
};

/** iOS confidence words to e-mission's numbers. */
export const confidenceByWord: Record<string, number> = { high: 100, medium: 75, low: 50 };
