import { liveAdditions } from './additions.js';
import {
  PLACE_ADDITION_KEY,
  PLACE_SINGLE_KEYS,
  TRIP_ADDITION_KEY,
  TRIP_SINGLE_KEYS,
  type UserInputEntry,
} from './input-entry.js';
import { indexInputs, type InputIndex, inputsStartingWithin } from './input-index.js';
import { latestWritten, userInputFieldOf, type UserInputMap } from './single-inputs.js';
import { elementBounds, type MoveSpan, type PlaceEdges, type TimelineElement, timelineOfMoves } from './timeline.js';
import { isValidInput } from './validity.js';

/** What a trip, untracked period or place carries from the user: the fields of the same name in the composite. */
export interface ElementLabels {
  user_input: UserInputMap;
  additions: UserInputEntry[];
}

/** Places take place inputs; trips and untracked periods take trip inputs (the phone sends them that way). */
function keysFor(element: TimelineElement): { single: readonly string[]; addition: string } {
  return element.kind === 'place'
    ? { single: PLACE_SINGLE_KEYS, addition: PLACE_ADDITION_KEY }
    : { single: TRIP_SINGLE_KEYS, addition: TRIP_ADDITION_KEY };
}

/**
 * The labels of `timeline[position]` from all the user's inputs (path A: matching when the element is created).
 * The element after it bounds how far an input may run past its end, so it is looked up in the same timeline.
 */
export function matchElement(
  timeline: readonly TimelineElement[],
  position: number,
  inputs: InputIndex,
): ElementLabels {
  const element = timeline[position];
  if (element === undefined) return { user_input: {}, additions: [] };
  const next = timeline[position + 1];
  const { start, end } = elementBounds(element);
  const keys = keysFor(element);
  const validFor = (key: string) =>
    inputsStartingWithin(inputs, key, start, end).filter((input) => isValidInput(element, next, input));

  let userInput: UserInputMap = {};
  for (const key of keys.single) {
    const winner = latestWritten(validFor(key));
    if (winner) userInput = { ...userInput, ...userInputFieldOf(winner) };
  }
  return { user_input: userInput, additions: liveAdditions(validFor(keys.addition), inputs.deletedNotes) };
}

/**
 * Labels for every element of a user's timeline (in time order), at the same positions. `inputs` are all the
 * user's stored `manual/*` entries; keys that are never matched (one-time surveys) are ignored. The result depends
 * only on the timeline and the set of inputs, so a rebuild gives the same labels.
 */
export function matchTimeline(
  timeline: readonly TimelineElement[],
  inputs: Iterable<UserInputEntry> | InputIndex,
): ElementLabels[] {
  const index = isInputIndex(inputs) ? inputs : indexInputs(inputs);
  return timeline.map((_, position) => matchElement(timeline, position, index));
}

function isInputIndex(value: Iterable<UserInputEntry> | InputIndex): value is InputIndex {
  return 'byKey' in value && 'deletedNotes' in value;
}

/** Labels of a list of moves and of the places around them. `places[i]` is left by `moves[i]`, reached by `moves[i-1]`. */
export interface MovesLabels {
  moves: ElementLabels[];
  /** One more than `moves`: the first is the place before the first move, the last the place after the last move. */
  places: ElementLabels[];
}

/**
 * Path A for the trip builder: the labels of consecutive moves (its `BuiltTrip`s as they are, untracked periods
 * flagged) and of the places between them, as `tripToCompositeEntry` needs them: trip i gets `moves[i]`, its start
 * place `places[i]`, its end place `places[i + 1]`. The last place is open unless `edges.lastPlaceExitTs` closes it.
 */
export function labelMoves(
  moves: readonly MoveSpan[],
  inputs: Iterable<UserInputEntry> | InputIndex,
  edges: PlaceEdges = {},
): MovesLabels {
  const labels = matchTimeline(timelineOfMoves(moves, edges), inputs);
  // timelineOfMoves alternates place, move, place, …, place: even positions are places.
  return {
    moves: labels.filter((_, i) => i % 2 === 1),
    places: labels.filter((_, i) => i % 2 === 0),
  };
}
