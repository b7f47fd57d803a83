import { isoLocal } from '../../shared/time/index.js';
import { explainInputs, type ElementLabels, type UserInputEntry } from '../trip-builder/domain/labels/index.js';
import { type DayReaders, labelDay } from '../trip-builder/rebuild-user.js';

/** Inputs are listed as unmatched when they start within this long of the day's trips. */
const NEARBY_S = 12 * 3600;

function describeLabels(labels: ElementLabels): string {
  const single = Object.entries(labels.user_input).map(([name, value]) =>
    typeof value === 'string' ? `${name}=${value}` : `${name}=${String(value.data['name'] ?? 'survey')}`,
  );
  const notes = labels.additions.map((a) => `note ${String(a.data.match_id ?? a._id.$oid)}`);
  return [...single, ...notes].join(', ') || '(none)';
}

function describeInput(input: UserInputEntry, tz: string): string {
  const label = input.data.label ?? input.data['name'] ?? input.data.match_id ?? '';
  return `${input.metadata.key} ${JSON.stringify(label)} ${isoLocal(input.data.start_ts, tz)} → ${isoLocal(input.data.end_ts, tz)} (written ${input.metadata.write_ts})`;
}

/**
 * `itinera labels <user> [-d DATE]`: each trip of the day with its labels and notes and those of its places, then
 * the inputs around the day that label nothing, with the reason. What an operator needs when a participant says
 * "my label disappeared".
 */
export async function labelsReport(deps: DayReaders, userId: string, day: string): Promise<string> {
  const labelled = await labelDay(deps, userId, day);
  if (!labelled) return `no trips for ${userId} on ${day}\n`;
  const { moves, timeline, inputs } = labelled;
  const trips = moves.filter(({ move }) => !move.untracked).map(({ move }) => move);
  const tz = trips[0]!.timeZone;
  const lines = [`${trips.length} trips for ${userId} on ${day}`];
  let n = 0;
  for (const { move, labels: l } of moves) {
    const what = move.untracked ? 'untracked' : `trip ${++n}`;
    lines.push(
      `${what}  ${isoLocal(move.startTs, tz)} → ${isoLocal(move.endTs, tz)}  ${Math.round(move.distance)} m`,
      `    labels:      ${describeLabels(l.trip)}`,
      `    start place: ${describeLabels(l.startPlace)}`,
      `    end place:   ${describeLabels(l.endPlace)}`,
    );
  }
  const from = trips[0]!.startTs - NEARBY_S;
  const to = trips[trips.length - 1]!.endTs + NEARBY_S;
  const unmatched = explainInputs(timeline, inputs).filter(
    (f) => f.matched === null && f.input.data.start_ts >= from && f.input.data.start_ts <= to,
  );
  lines.push(unmatched.length === 0 ? 'every input around the day labels something' : 'inputs that label nothing:');
  for (const fate of unmatched)
    if (fate.matched === null) lines.push(`    ${describeInput(fate.input, tz)}: ${fate.reason}`);
  return `${lines.join('\n')}\n`;
}
