import type { UserInputEntry } from './input-entry.js';
import { elementBounds, elementEnd, type TimelineElement } from './timeline.js';

/**
 * The phone sends a label with its trip's own times, but a survey's times come from what the user typed and may
 * run past the trip's end; e-mission tolerates 15 minutes before looking further.
 */
export const END_SLACK_S = 15 * 60;
/** An input reaching past the slack still belongs here if more than half of this element is covered by it. */
export const MIN_OVERLAP_FRACTION = 0.5;

export type InvalidReason = 'starts-outside' | 'ends-too-late' | 'overlap-too-small';
export type Verdict = { valid: true } | { valid: false; reason: InvalidReason };

/**
 * Whether `input` belongs to `element` (e-mission's validity, labels-and-modes.md §3). `next` is the timeline entry
 * after it (a trip's end place, a place's next trip), undefined when there is none. The input must start inside the
 * element (end excluded, so an input starting exactly when a trip ends belongs to the place after it), and end
 * within the slack; failing that, within the next entry (or anywhere, if it is open or absent) while covering more
 * than half of the element.
 */
export function checkValidity(
  element: TimelineElement,
  next: TimelineElement | undefined,
  input: UserInputEntry,
): Verdict {
  const { start, end } = elementBounds(element);
  const inputStart = input.data.start_ts;
  const inputEnd = input.data.end_ts;
  if (!(start <= inputStart && inputStart < end)) return { valid: false, reason: 'starts-outside' };
  if (inputEnd <= end + END_SLACK_S) return { valid: true };

  const nextEnd = next === undefined ? undefined : elementEnd(next);
  if (nextEnd !== undefined && inputEnd > nextEnd) return { valid: false, reason: 'ends-too-late' };
  // The element's duration is E − S, which is e-mission's `duration` for trips and for places with both times.
  const overlap = Math.min(inputEnd, end) - Math.max(inputStart, start);
  if (!(overlap / (end - start) > MIN_OVERLAP_FRACTION)) return { valid: false, reason: 'overlap-too-small' };
  return { valid: true };
}

export function isValidInput(
  element: TimelineElement,
  next: TimelineElement | undefined,
  input: UserInputEntry,
): boolean {
  return checkValidity(element, next, input).valid;
}

/** e-mission's candidate query: `data.start_ts` within [S, E], both ends included, for trips and places alike. */
export function startsWithin(element: TimelineElement, input: UserInputEntry): boolean {
  const { start, end } = elementBounds(element);
  return start <= input.data.start_ts && input.data.start_ts <= end;
}
