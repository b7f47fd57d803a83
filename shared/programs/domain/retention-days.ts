import { RawLocationDays } from './deployment-config.js';
import { opcodeProgram } from './opcode.js';

/** A program whose stored document does not say how long it keeps raw locations in a form that can be trusted. */
export class UnreadableRetention {
  constructor(readonly reason: string) {}
}

/** What a program's stored document says of its raw locations: its own days, nothing (the deployment's), or unreadable. */
export type ProgramRetention = number | undefined | UnreadableRetention;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `itinera.raw_location_days` of a stored document, read from its JSON alone. The rest of the document is not
 * checked: a field that today's schema refuses says nothing about how long the program keeps its data, and
 * dropping the program would apply the deployment's days, possibly fewer than the program promised its
 * participants.
 */
export function storedRetentionDays(document: string): ProgramRetention {
  let json: unknown;
  try {
    json = JSON.parse(document);
  } catch (err) {
    return new UnreadableRetention(`not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(json)) return new UnreadableRetention('the document is not a JSON object');
  const itinera = json['itinera'];
  if (itinera === undefined) return undefined;
  if (!isObject(itinera)) return new UnreadableRetention('itinera is not an object');
  if (itinera['raw_location_days'] === undefined) return undefined;
  const days = RawLocationDays.safeParse(itinera['raw_location_days']);
  return days.success
    ? days.data
    : new UnreadableRetention(`itinera.raw_location_days: ${days.error.issues.map((i) => i.message).join('; ')}`);
}

/**
 * How many days a participant's raw locations are kept: their program's `itinera.raw_location_days` when it sets
 * one, else the deployment's. 0 keeps them for good. UnreadableRetention: their program's days cannot be read, so
 * nothing of theirs may be removed.
 */
export function retentionDaysOf(
  token: string,
  programs: ReadonlyMap<string, ProgramRetention>,
  deploymentDays: number,
): number | UnreadableRetention {
  const program = opcodeProgram(token);
  const days = program === undefined ? undefined : programs.get(program);
  return days ?? deploymentDays;
}
