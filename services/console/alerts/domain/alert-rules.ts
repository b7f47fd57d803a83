import { TOKEN_PART, TOKEN_PART_RULE } from '../../../../shared/ids/token-part.js';
import type { ParticipantRow } from '../../participants/query-participants.js';
import { radarFindings } from '../../radar/radar-rules.js';
import { RADAR_RULES, type RadarRule } from '../../radar/radar-schemas.js';
import { inScope, type ProgramScope } from '../../scope/program-scope.js';
import type { LowScoreStreak } from './score-streaks.js';

const HOUR = 3600;

/**
 * What the alert rules look at. Each kind of rule reads what it needs of it; a rule on another source (a per-day
 * score, say) adds that source here and its kind to ALERT_KINDS.
 */
export interface AlertSources {
  /** The participant index's rows, tokens in full. */
  rows: readonly ParticipantRow[];
  /** Each participant's run of low-scoring days, where one ends with their last whole day (score-streaks.ts). */
  lowScores?: ReadonlyMap<string, LowScoreStreak>;
}

/** One participant a kind of rule finds, and since when its condition holds (Unix seconds). */
export interface Found {
  userId: string;
  token: string;
  program: string | null;
  since: number;
  /** The last trip's end in its own local time (ISO 8601), which names the day page to link to. */
  lastTripLocal: string | null;
  /** The day page to link to, where the rule knows it better than the last trip (YYYY-MM-DD). */
  day?: string;
}

/** A kind of rule: the participants it finds at `now` whose condition has held `hours`, among `programs`. */
export type AlertKind = (sources: AlertSources, at: { now: number; hours: number; programs: ProgramScope }) => Found[];

/**
 * The radar's rules (radar/radar-rules.ts), held for `hours` since their condition began. The radar finds a tracking
 * change at once, whatever the hours asked; an alert waits them out like the others.
 */
const radarKind =
  (rule: RadarRule): AlertKind =>
  ({ rows }, { now, hours, programs }) =>
    radarFindings(rows, { now, hours, scope: programs })
      .filter((f) => f.rule === rule && now - f.since >= hours * HOUR)
      .map(({ userId, token, program, since, lastTripLocal }) => ({ userId, token, program, since, lastTripLocal }));

/**
 * `low_score:<days>d`: the day's completeness score below LOW_SCORE on each of the participant's last whole days, at
 * least the days the rule names (its hours in whole days, rounded up), since the first of them.
 */
const lowScoreKind: AlertKind = ({ rows, lowScores }, { hours, programs }) => {
  const days = Math.ceil(hours / 24);
  return rows.flatMap(({ userId, token, program, lastTripLocal }) => {
    const streak = lowScores?.get(userId);
    if (!streak || streak.days < days || !inScope(programs, program)) return [];
    return [{ userId, token, program, since: streak.since, lastTripLocal, day: streak.firstDate }];
  });
};

export const ALERT_KINDS: Readonly<Record<string, AlertKind>> = {
  ...Object.fromEntries(RADAR_RULES.map((rule) => [rule, radarKind(rule)])),
  low_score: lowScoreKind,
};

/** Whether any of `rules` needs the participants' day scores, which cost a few reads per participant. */
export const needsDayScores = (rules: readonly AlertRule[]) => rules.some((r) => r.kind === 'low_score');

export interface AlertRule {
  /**
   * `<kind>:<hours>h`: what the rule finds and after how long, whatever programs it watches. It names the rule's
   * episodes, so writing a rule again for more programs does not alert anew those it already alerted about.
   */
  id: string;
  kind: string;
  hours: number;
  /** The programs watched; undefined: every participant, those of no program too. */
  programs: ProgramScope;
}

const RULE = /^(?<kind>[a-z_]+):(?<amount>\d+(?:\.\d+)?)(?<unit>[hd])(?::(?<programs>.+))?$/;

/** A rule as configured, `silent:48h`, `tracking_off:2d:study-a+study-b`; a string says what is wrong with it. */
export function parseAlertRule(text: string): AlertRule | string {
  const parts = RULE.exec(text.trim())?.groups;
  if (!parts) return `"${text}" is not <rule>:<hours>h or <rule>:<days>d, optionally :<program>+<program>`;
  const { kind = '', amount, unit, programs: programList } = parts;
  if (!Object.hasOwn(ALERT_KINDS, kind))
    return `"${text}": no rule ${kind} (rules: ${Object.keys(ALERT_KINDS).join(', ')})`;
  const hours = Number(amount) * (unit === 'd' ? 24 : 1);
  if (!(hours > 0)) return `"${text}": the time must be above 0`;
  const programs = programList?.split('+');
  const wrong = programs?.find((p) => !TOKEN_PART.test(p));
  if (wrong !== undefined) return `"${text}": "${wrong}" is not a program name (${TOKEN_PART_RULE})`;
  return { id: `${kind}:${hours}h`, kind, hours, programs };
}

/** What an alert names of one participant a rule finds; the token masked, as the radar shows it. */
export interface Finding {
  /** The rule's id. */
  rule: string;
  userId: string;
  program: string | null;
  maskedToken: string;
  since: number;
  /** The day page to link to (YYYY-MM-DD): the last trip's local day, else the day the condition began. */
  day: string;
}

/** The episode a finding belongs to: a participant, a rule and when the condition began. */
export const episodeKey = (e: { userId: string; rule: string; since: number }) => `${e.userId}|${e.rule}|${e.since}`;

/**
 * What every rule finds, once per episode: two rules of the same id (one per program list) may find a participant
 * twice. `localDay` is a time's date where the operators are; `mask` hides most of a token.
 */
export function findAll(
  rules: readonly AlertRule[],
  sources: AlertSources,
  { now, localDay, mask }: { now: number; localDay: (ts: number) => string; mask: (token: string) => string },
): Finding[] {
  const found = new Map<string, Finding>();
  for (const rule of rules) {
    for (const f of ALERT_KINDS[rule.kind]!(sources, { now, hours: rule.hours, programs: rule.programs })) {
      const finding: Finding = {
        rule: rule.id,
        userId: f.userId,
        program: f.program,
        maskedToken: mask(f.token),
        since: f.since,
        day: f.day ?? f.lastTripLocal?.slice(0, 10) ?? localDay(f.since),
      };
      found.set(episodeKey(finding), finding);
    }
  }
  return [...found.values()];
}
