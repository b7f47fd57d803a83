/**
 * The user's timeline as the matcher sees it: trips, untracked periods and places in time order, each reduced to
 * its bounds. Places alternate with moves (trips or untracked periods); the day's first place has no enter time
 * and the place the user is still at has no exit time.
 */

export type MoveKind = 'trip' | 'untracked';

export interface TimelineMove {
  kind: MoveKind;
  startTs: number;
  endTs: number;
}

export interface TimelinePlace {
  kind: 'place';
  enterTs?: number;
  exitTs?: number;
}

export type TimelineElement = TimelineMove | TimelinePlace;

/** e-mission's stand-in for "no end yet" (the largest 32-bit time), so the open place accepts every later input. */
export const OPEN_END_TS = 2 ** 31 - 1;

/** [S, E] of an element with e-mission's defaults: an unknown start is 0, an unknown end is OPEN_END_TS. */
export function elementBounds(element: TimelineElement): { start: number; end: number } {
  if (element.kind === 'place') return { start: element.enterTs ?? 0, end: element.exitTs ?? OPEN_END_TS };
  return { start: element.startTs, end: element.endTs };
}

/** The element's own end, undefined while it is open: the next-entry rule needs to tell "open" from "ends late". */
export function elementEnd(element: TimelineElement): number | undefined {
  return element.kind === 'place' ? element.exitTs : element.endTs;
}

/**
 * Where a move starts and ends. The trip builder's `BuiltTrip` has this shape already, so its trips can be passed
 * as they are; an untracked period says so.
 */
export interface MoveSpan {
  startTs: number;
  endTs: number;
  untracked?: boolean;
}

export interface PlaceEdges {
  /** When the user reached the first place (the end of the move before the list), if known. */
  firstPlaceEnterTs?: number;
  /** When the user left the last place (the start of the move after the list), if known; else the place is open. */
  lastPlaceExitTs?: number;
}

/**
 * The full timeline around a list of moves: place, move, place, …, move, place. The place between two moves is
 * entered at the end of one and left at the start of the next, as the composite trips' confirmed places are.
 */
export function timelineOfMoves(moves: readonly MoveSpan[], edges: PlaceEdges = {}): TimelineElement[] {
  const timeline: TimelineElement[] = [];
  let enterTs = edges.firstPlaceEnterTs;
  for (const move of moves) {
    timeline.push({ kind: 'place', enterTs, exitTs: move.startTs });
    timeline.push({ kind: move.untracked ? 'untracked' : 'trip', startTs: move.startTs, endTs: move.endTs });
    enterTs = move.endTs;
  }
  timeline.push({ kind: 'place', enterTs, exitTs: edges.lastPlaceExitTs });
  return timeline;
}
