import type { z } from 'zod';
import type { ParticipantRow } from '../participants/query-participants.js';
import { maskToken } from '../participants/query-participants.js';
import { inScope, type ProgramScope } from '../scope/program-scope.js';
import { cohortOf } from '../../../shared/programs/domain/opcode.js';
import { RADAR_RULES, type RadarPage, type RadarQuery, type RadarRule, type RadarRow } from './radar-schemas.js';

type Row = z.infer<typeof RadarRow>;

const HOUR = 3600;

/**
 * When each rule finds the participant, or undefined (times in Unix seconds, `now` the server's):
 * - silent: the last push is `hours` old, or the participant registered `hours` ago and never pushed. The phone may be
 *   off, the app killed or uninstalled: e-mission's phones push at least at every trip end and on a silent push.
 * - no_locations: the phone's newest entry (battery, transitions, motion) is `hours` newer than its newest location:
 *   it still senses but no longer locates, as when location permission was taken back. By the phone's own clock, so
 *   a day pushed late is no false alarm. Not while tracking is off: no location is then what the phone should send.
 * - tracking_off: the phone's newest transition reached TRACKING_STOPPED (the participant or the OS turned it off).
 * - not_labelling: the participant's last trip ended `hours` after their last label, survey answer or note (or after
 *   their first push, never having labelled): trips go unlabelled, where e-mission's studies need labels.
 * - outdated_app: the app version the phone last reported is older than the newest any participant of the same
 *   program reports: a fix or a new survey has not reached this phone. Since its first push (when it fell behind is
 *   not recorded).
 */
function since(
  rule: RadarRule,
  p: ParticipantRow,
  now: number,
  hours: number,
  newest: NewestVersions,
): number | undefined {
  const limit = hours * HOUR;
  switch (rule) {
    case 'silent': {
      const last = p.lastPush ?? p.created;
      return last !== null && now - last >= limit ? last : undefined;
    }
    case 'no_locations': {
      if (p.lastData === null || p.trackingOffSince !== null) return undefined;
      const located = p.lastLocation ?? p.firstPush ?? p.lastData;
      return p.lastData - located >= limit ? located : undefined;
    }
    case 'tracking_off':
      return p.trackingOffSince ?? undefined;
    case 'not_labelling': {
      const labelled = p.lastLabel ?? p.firstPush;
      return p.lastTrip !== null && labelled !== null && p.lastTrip - labelled >= limit ? labelled : undefined;
    }
    case 'outdated_app': {
      const latest = newest.get(p.program);
      const behind = p.appVersion !== null && latest !== undefined && compareAppVersions(p.appVersion, latest) < 0;
      return behind ? (p.firstPush ?? p.created ?? undefined) : undefined;
    }
  }
}

type NewestVersions = Map<string | null, string>;

/**
 * Orders app versions as their numbers read (`1.10.0` after `1.9.2`), part by part; a version with more parts is
 * the later when the others are equal (`2.1.3` after `2.1`).
 */
export function compareAppVersions(a: string, b: string): number {
  const parts = (v: string) => (v.match(/\d+/g) ?? []).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The newest app version each program's participants report, over all of them (not only those in scope). Testers are
 * left out: one of them on a beta build would put the whole program behind.
 */
function newestVersions(rows: readonly ParticipantRow[]): NewestVersions {
  const newest: NewestVersions = new Map();
  for (const { program, appVersion, token } of rows) {
    if (appVersion === null || cohortOf(token).tester) continue;
    const known = newest.get(program);
    if (known === undefined || compareAppVersions(appVersion, known) > 0) newest.set(program, appVersion);
  }
  return newest;
}

/** Every (participant, rule) the rules find among `rows` in `scope`, the longest-standing first. */
export function radarFindings(
  rows: readonly ParticipantRow[],
  { now, hours, scope }: { now: number; hours: number; scope: ProgramScope },
): Row[] {
  const found: Row[] = [];
  const newest = newestVersions(rows);
  for (const p of rows) {
    if (!inScope(scope, p.program)) continue;
    for (const rule of RADAR_RULES) {
      const from = since(rule, p, now, hours, newest);
      if (from === undefined) continue;
      found.push({
        userId: p.userId,
        token: p.token,
        program: p.program,
        rule,
        since: from,
        lastPush: p.lastPush,
        lastLocation: p.lastLocation,
        lastTrip: p.lastTrip,
        lastTripLocal: p.lastTripLocal,
      });
    }
  }
  // Phones that stopped collecting before those that only run an old app, then the longest-standing first.
  const lastly = (f: Row) => (f.rule === 'outdated_app' ? 1 : 0);
  return found.sort(
    (a, b) => lastly(a) - lastly(b) || a.since - b.since || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
  );
}

/** The subgroup a program's token names (`nrelop_<program>_<subgroup>_…`); undefined for any other token. */
const subgroupOf = (token: string) => {
  const parts = token.split('_');
  return parts[0] === 'nrelop' && parts.length >= 4 ? parts[2] : undefined;
};

/**
 * One page of the findings of `query.rule` (all rules when absent) among the participants of `query.subgroup` (all
 * when empty), with each rule's count there; tokens masked.
 */
export function radarPage(
  findings: readonly Row[],
  query: z.infer<typeof RadarQuery>,
  asOf: number,
): z.infer<typeof RadarPage> {
  const inSubgroup = query.subgroup === '' ? findings : findings.filter((f) => subgroupOf(f.token) === query.subgroup);
  const counts = Object.fromEntries(RADAR_RULES.map((rule) => [rule, 0])) as Record<RadarRule, number>;
  for (const f of inSubgroup) counts[f.rule] += 1;
  const chosen = query.rule === undefined ? [...inSubgroup] : inSubgroup.filter((f) => f.rule === query.rule);
  if (query.dir === 'desc') chosen.reverse();
  const rows = chosen
    .slice(query.page * query.size, (query.page + 1) * query.size)
    .map((r) => ({ ...r, token: maskToken(r.token) }));
  return { asOf, hours: query.hours, counts, total: chosen.length, page: query.page, size: query.size, rows };
}
