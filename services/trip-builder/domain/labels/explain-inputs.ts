import { deletedMatchIds } from './additions.js';
import { inputKind, isDeleted, type UserInputEntry } from './input-entry.js';
import { latestWritten } from './single-inputs.js';
import type { TimelineElement } from './timeline.js';
import { checkValidity, type InvalidReason, startsWithin } from './validity.js';

/** Where an input went: the timeline element it labels, or why it labels nothing. */
export type InputFate =
  { input: UserInputEntry; matched: number } | { input: UserInputEntry; matched: null; reason: string };

const INVALID: Record<InvalidReason, string> = {
  'starts-outside': 'starts outside every trip or place',
  'ends-too-late': 'ends after the next trip or place ends',
  'overlap-too-small': 'runs 15 min past its trip or place and covers less than half of it',
};

/**
 * For an operator asking "where did my label go?": each input of a timeline's span, with the element (by position)
 * it labels under the same rules as matching, or the reason it labels nothing: never matched (a one-time survey),
 * no element at its start, a validity rule it fails, a later input of the same kind winning, or a deletion.
 */
export function explainInputs(timeline: readonly TimelineElement[], inputs: readonly UserInputEntry[]): InputFate[] {
  const deleted = deletedMatchIds(inputs);
  return inputs.map((input) => {
    const kind = inputKind(input.metadata.key);
    if (kind === undefined) return { input, matched: null, reason: 'never matched (a one-time survey or another key)' };
    if (kind.role === 'addition' && isDeleted(input))
      return { input, matched: null, reason: `a deletion: removes note ${String(input.data.match_id)}` };
    if (kind.role === 'addition' && typeof input.data.match_id === 'string' && deleted.has(input.data.match_id))
      return { input, matched: null, reason: 'deleted later' };

    const family = (e: TimelineElement) => (kind.family === 'place') === (e.kind === 'place');
    const around = timeline.flatMap((element, i) => (family(element) && startsWithin(element, input) ? [i] : []));
    if (around.length === 0) return { input, matched: null, reason: `no ${kind.family} at its start time` };
    let lastReason = '';
    for (const i of around) {
      const verdict = checkValidity(timeline[i]!, timeline[i + 1], input);
      if (!verdict.valid) {
        lastReason = INVALID[verdict.reason];
        continue;
      }
      if (kind.role === 'addition') return { input, matched: i };
      const rivals = inputs.filter(
        (other) =>
          other.metadata.key === input.metadata.key &&
          startsWithin(timeline[i]!, other) &&
          checkValidity(timeline[i]!, timeline[i + 1], other).valid,
      );
      const winner = latestWritten(rivals);
      if (winner === input) return { input, matched: i };
      return {
        input,
        matched: null,
        reason: `replaced by a later ${input.metadata.key} (written ${winner?.metadata.write_ts})`,
      };
    }
    return { input, matched: null, reason: lastReason };
  });
}
