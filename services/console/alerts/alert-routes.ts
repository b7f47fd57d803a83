import type { z } from 'zod';
import { route, type ConsoleRoute } from '../api/route-table.js';
import { inScope, type ProgramScope } from '../scope/program-scope.js';
import { AlertList, AlertsQuery } from './alert-schemas.js';
import type { AlertRule } from './domain/alert-rules.js';
import { CHANNEL_NAMES, type ChannelName } from './domain/delivery.js';
import type { Episode } from './domain/episodes.js';

/** What the console knows of its alerts: its settings, and the episodes as the last evaluation read them. */
export interface AlertLog {
  channels: readonly ChannelName[];
  rules: readonly AlertRule[];
  recent(): { asOf: number | null; episodes: readonly Episode[] };
}

/** The rules as a caller of `scope` may see them: those watching one of their programs, named by theirs only. */
function rulesSeenBy(rules: readonly AlertRule[], scope: ProgramScope) {
  return rules.flatMap(({ id, programs }) => {
    if (programs === undefined) return [{ rule: id, programs: scope === undefined ? null : [...scope] }];
    const seen = programs.filter((p) => inScope(scope, p));
    return seen.length === 0 ? [] : [{ rule: id, programs: seen }];
  });
}

/**
 * The alerts of the caller's programs, the latest opened first. Only participants the console still knows: a
 * deleted participant's episodes stay in the table until they expire, but are shown nowhere.
 */
export function alertList(
  log: AlertLog,
  query: z.infer<typeof AlertsQuery>,
  scope: ProgramScope,
  isKnown: (userId: string) => boolean = () => true,
): z.infer<typeof AlertList> {
  const { asOf, episodes } = log.recent();
  const chosen = episodes
    .filter((e) => inScope(scope, e.program) && isKnown(e.userId))
    .filter((e) => query.state === undefined || (query.state === 'open') === (e.endedAt === null))
    .sort((a, b) => b.openedAt - a.openedAt || (a.userId < b.userId ? -1 : 1));
  return {
    enabled: log.channels.length > 0,
    channels: [...log.channels],
    rules: rulesSeenBy(log.rules, scope),
    asOf,
    total: chosen.length,
    rows: chosen.slice(0, query.size).map((e) => ({
      userId: e.userId,
      token: e.maskedToken,
      program: e.program,
      rule: e.rule,
      since: e.since,
      day: e.day,
      openedAt: e.openedAt,
      endedAt: e.endedAt,
      attempts: e.attempt,
      sent: Object.fromEntries(CHANNEL_NAMES.map((c) => [c, e.sent[c] ?? null])),
      lastError: e.lastError,
    })),
  };
}

/** The console's alerts, limited to the caller's programs like the radar. */
export function alertRoutes(d: { alerts: AlertLog; participants: { get(userId: string): unknown } }): ConsoleRoute[] {
  return [
    route({
      method: 'get',
      path: '/admin/api/alerts',
      summary: 'Recent alerts of the radar’s rules: who, which rule, since when, and what became of the message',
      programScoped: true,
      query: AlertsQuery,
      response: AlertList,
      handle: async ({ query, scope }) =>
        alertList(d.alerts, query, scope, (userId) => d.participants.get(userId) !== undefined),
    }),
  ];
}
