import {
  appendAddition,
  type ElementLabels,
  inputKind,
  inputName,
  isActive,
  isDeleted,
  isValidInput,
  removeAdditions,
  type TimelineElement,
  type UserInputEntry,
  userInputValue,
  type UserInputValue,
} from '../../../services/trip-builder/domain/labels/index.js';

/** How far from an input's start its trip or place may begin: e-mission looks one day either way. */
export const INCOMING_WINDOW_S = 86_400;

/**
 * A trip, untracked period or place already confirmed, with the write time of its stored entry: when an input is
 * valid for several, the most recently written one takes it (e-mission's rule). Without a write time, the later
 * element in the timeline wins.
 */
export type ConfirmedElement = TimelineElement & { writeTs?: number };

export type NoMatchReason =
  /** Not a key that labels trips or places (one-time surveys, unknown keys). */
  | 'not-matched-key'
  /** No confirmed trip (or place) begins within a day of the input. */
  | 'no-element-in-range'
  /** Some begin near it, but the input is valid for none. */
  | 'no-valid-element'
  /** A label without its label string, a note whose status is neither ACTIVE nor DELETED, a deletion without match id. */
  | 'unusable-input';

/** What an incoming input changes: `index` is the position of the element in the timeline given. */
export type IncomingMatch =
  | { action: 'set-user-input'; index: number; name: string; value: UserInputValue }
  | { action: 'add-addition'; index: number; addition: UserInputEntry }
  | { action: 'remove-additions'; index: number; matchId: string }
  | { action: 'none'; reason: NoMatchReason };

/**
 * Path B: the element an input pushed after its trip exists belongs to, and what it changes there. `timeline` is
 * the user's confirmed timeline in time order (untracked periods included: they bound the places around them, but
 * never take an input here, as in e-mission). Places are found by enter time, so the day's first place, which has
 * none, is never matched on this path; the place the user is still at takes every later place note until it closes
 * and path A redistributes them.
 */
export function matchIncomingInput(input: UserInputEntry, timeline: readonly ConfirmedElement[]): IncomingMatch {
  const kind = inputKind(input.metadata.key);
  if (kind === undefined) return { action: 'none', reason: 'not-matched-key' };

  const nearby = nearbyPositions(timeline, kind.family, input.data.start_ts);
  if (nearby.length === 0) return { action: 'none', reason: 'no-element-in-range' };
  const valid = nearby.filter((i) => isValidInput(timeline[i]!, timeline[i + 1], input));
  if (valid.length === 0) return { action: 'none', reason: 'no-valid-element' };
  const index = latestWrittenPosition(timeline, valid);

  if (kind.role === 'single') {
    const value = userInputValue(input);
    if (value === undefined) return { action: 'none', reason: 'unusable-input' };
    return { action: 'set-user-input', index, name: inputName(input.metadata.key), value };
  }
  if (isDeleted(input)) {
    const matchId = input.data.match_id;
    return typeof matchId === 'string'
      ? { action: 'remove-additions', index, matchId }
      : { action: 'none', reason: 'unusable-input' };
  }
  return isActive(input)
    ? { action: 'add-addition', index, addition: input }
    : { action: 'none', reason: 'unusable-input' };
}

/** Positions of the elements an input may belong to: places by enter time, trips by start time, within a day. */
function nearbyPositions(timeline: readonly ConfirmedElement[], family: 'trip' | 'place', ts: number): number[] {
  const positions: number[] = [];
  timeline.forEach((element, i) => {
    const begins = beginningFor(element, family);
    if (begins !== undefined && Math.abs(begins - ts) <= INCOMING_WINDOW_S) positions.push(i);
  });
  return positions;
}

/** When an element begins, for inputs of `family`; undefined when it cannot take them (or has no known beginning). */
function beginningFor(element: ConfirmedElement, family: 'trip' | 'place'): number | undefined {
  if (family === 'place') return element.kind === 'place' ? element.enterTs : undefined;
  return element.kind === 'trip' ? element.startTs : undefined;
}

function latestWrittenPosition(timeline: readonly ConfirmedElement[], positions: readonly number[]): number {
  let best = positions[0]!;
  for (const i of positions) {
    if ((timeline[i]!.writeTs ?? -Infinity) >= (timeline[best]!.writeTs ?? -Infinity)) best = i;
  }
  return best;
}

/**
 * The element's labels after an incoming match (a new object; the old one is untouched). A label overwrites its
 * field; a note is appended (once, even if its input is replayed or was already matched when the trip was built);
 * a deletion removes every note of its match id.
 */
export function applyIncomingMatch(labels: ElementLabels, match: IncomingMatch): ElementLabels {
  switch (match.action) {
    case 'set-user-input':
      return { ...labels, user_input: { ...labels.user_input, [match.name]: match.value } };
    case 'add-addition':
      return { ...labels, additions: appendAddition(labels.additions, match.addition) };
    case 'remove-additions':
      return { ...labels, additions: removeAdditions(labels.additions, match.matchId) };
    case 'none':
      return labels;
  }
}
