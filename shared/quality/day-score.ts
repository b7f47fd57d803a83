import { State } from '../events/emission-enums.js';
import type { SensedDay } from '../tables/participant-days.js';
import { shiftIsoDay } from '../time/calendar.js';

/**
 * How complete a participant's local day of data is: the rule the console, the export and the docs state.
 *
 * The day is cut into 96 quarter-hours of the phone's local time, and each is put in one class:
 * - `located`: the phone sensed a location in it;
 * - `at_place`: no location, but the phone's last transition left it waiting for a trip to start (e-mission's
 *   phones stop locating inside the geofence around a stop, by design: a still phone sends nothing for hours);
 * - `tracking_off`: the last transition reached TRACKING_STOPPED (the participant or the OS turned tracking off);
 * - `no_locations`: the phone sent other entries (motion, transitions, battery) but no location, while not at a
 *   place: location permission taken back, or sensing failing during a trip;
 * - `no_data`: nothing at all, while not at a place or tracking off: the phone off, the app killed or uninstalled.
 *
 * The score is the share of the considered quarters that are `located` or `at_place`, 0 to 1 (two decimals).
 * A past day considers all 96; the participant's latest day considers quarters up to its last entry, so a day
 * still in progress is not marked down for hours yet to come (a phone that went silent today is the radar's
 * `silent` rule). A phone stays in a state until a transition: the state a day begins in is the one the phone's
 * last transition before it left (read up to a week back); where nothing says (the participant's first day), the
 * state the day's first transition found the phone in is taken to have held since midnight. A day between the
 * participant's first and latest with no entry at all scores 0: all `tracking_off` when the phone's last state left
 * tracking off, all `no_data` otherwise (a working phone records a transition or a battery reading at least daily).
 * Runs of one class other than `located` and `at_place` lasting at least an hour are listed as the day's gaps, with
 * their class as the reason.
 */

export const DAY_QUARTERS = 96;
const QUARTER_S = 900;
/** A run of missing quarters this long is a gap worth naming: an hour. */
const GAP_MIN_QUARTERS = 4;

export const QUARTER_CLASSES = ['located', 'at_place', 'tracking_off', 'no_locations', 'no_data'] as const;
export type QuarterClass = (typeof QUARTER_CLASSES)[number];
export type GapReason = Exclude<QuarterClass, 'located' | 'at_place'>;

export interface DayGap {
  /** Local wall-clock times, HH:MM, the end exclusive (24:00 at the day's end). */
  from: string;
  to: string;
  reason: GapReason;
}

export interface DayScore {
  localDate: string;
  /** null when no quarter is considered (a latest day whose only entry falls in its first minutes is still 1/1). */
  score: number | null;
  considered: number;
  quarters: Record<QuarterClass, number>;
  hoursWithLocations: number;
  gaps: DayGap[];
  /** One letter per considered quarter, from midnight (see STRIP_LETTERS): what a day's timeline strip draws. */
  strip: string;
  battery: { pct: number; ts: number } | null;
}

/** The letter of each class in a day's strip. */
export const STRIP_LETTERS: Record<QuarterClass, string> = {
  located: 'L',
  at_place: 'P',
  tracking_off: 'T',
  no_locations: 'M',
  no_data: 'N',
};

const clock = (quarter: number) => {
  const minutes = quarter * 15;
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
};

function classify(located: boolean, state: number | undefined, alive: boolean): QuarterClass {
  if (located) return 'located';
  if (state === State.WAITING_FOR_TRIP_START) return 'at_place';
  if (state === State.TRACKING_STOPPED) return 'tracking_off';
  return alive ? 'no_locations' : 'no_data';
}

function gapsOf(classes: readonly QuarterClass[]): DayGap[] {
  const gaps: DayGap[] = [];
  let start = 0;
  for (let q = 1; q <= classes.length; q++) {
    if (q < classes.length && classes[q] === classes[start]) continue;
    const reason = classes[start]!;
    if (reason !== 'located' && reason !== 'at_place' && q - start >= GAP_MIN_QUARTERS)
      gaps.push({ from: clock(start), to: clock(q), reason });
    start = q;
  }
  return gaps;
}

/**
 * One day's score. `stateBefore` is the tracking state the phone was in when the day began (its previous day's last
 * transition); `considered` how many quarters from midnight count.
 */
export function scoreDay(day: SensedDay, stateBefore: number | undefined, considered: number): DayScore {
  const located = new Set(day.locationQuarters);
  const alive = new Set(day.dataQuarters);
  const classes: QuarterClass[] = [];
  // Unknown at midnight (the participant's first day, or after a day without data): a phone stays in a state until
  // a transition, so the state its first transition found it in held since the day began.
  let state = stateBefore ?? day.states[0]?.[1];
  let next = 0;
  for (let q = 0; q < considered; q++) {
    // The state a quarter is judged by is the one its own transitions reached: a trip that starts mid-quarter and
    // sends no location in it is a quarter without locations, not a quarter at a place.
    while (next < day.states.length && Math.floor(day.states[next]![0] / QUARTER_S) <= q)
      state = day.states[next++]![1];
    classes.push(classify(located.has(q), state, alive.has(q)));
  }
  const quarters = Object.fromEntries(QUARTER_CLASSES.map((c) => [c, 0])) as Record<QuarterClass, number>;
  for (const c of classes) quarters[c] += 1;
  const accounted = quarters.located + quarters.at_place;
  return {
    localDate: day.localDate,
    score: considered === 0 ? null : Math.round((accounted / considered) * 100) / 100,
    considered,
    quarters,
    hoursWithLocations: new Set(day.locationQuarters.map((q) => Math.floor(q / 4))).size,
    gaps: gapsOf(classes),
    strip: classes.map((c) => STRIP_LETTERS[c]).join(''),
    battery: day.battery,
  };
}

/** The state the day's last transition reached, or the one it began in. */
function stateAfter(day: SensedDay, stateBefore: number | undefined): number | undefined {
  return day.states.length > 0 ? day.states[day.states.length - 1]![1] : stateBefore;
}

const nextDate = (date: string) => shiftIsoDay(date, 1);

/** A day the phone sent nothing of. */
export const emptySensedDay = (localDate: string): SensedDay => ({
  localDate,
  dataQuarters: [],
  locationQuarters: [],
  motionQuarters: [],
  states: [],
  battery: null,
});

/**
 * Scores a participant's local days from `from` to `to` (both included, YYYY-MM-DD), from what was sensed (`days`,
 * oldest first; rows before `from` only tell the state the range began in). `latestDate` is the participant's latest
 * day with data: it is scored up to its last entry, and no day after it is listed. A day without a row is a day
 * without data, or of tracking off when the phone's last state left tracking off (a stopped phone sends nothing).
 * The caller starts `from` no earlier than the participant's first day.
 */
export function scoreDays(
  days: readonly SensedDay[],
  { from, to, latestDate }: { from: string; to: string; latestDate: string },
): DayScore[] {
  const byDate = new Map(days.map((d) => [d.localDate, d]));
  let state: number | undefined;
  for (const d of days) if (d.localDate < from) state = stateAfter(d, state);
  const scores: DayScore[] = [];
  const last = to < latestDate ? to : latestDate;
  for (let date = from; date <= last; date = nextDate(date)) {
    const day = byDate.get(date);
    if (day === undefined) {
      scores.push(scoreDay(emptySensedDay(date), state === State.TRACKING_STOPPED ? state : undefined, DAY_QUARTERS));
      continue;
    }
    const considered = date === latestDate ? Math.max(0, ...day.dataQuarters.map((q) => q + 1)) : DAY_QUARTERS;
    scores.push(scoreDay(day, state, considered));
    state = stateAfter(day, state);
  }
  return scores;
}
