import { scopeOf } from '../api/caller.js';
import { route, type ConsoleRoute } from '../api/route-table.js';
import type { ParticipantIndex } from '../participants/participant-index.js';
import { radarFindings, radarPage } from './radar-rules.js';
import { RadarPage, RadarQuery } from './radar-schemas.js';

/**
 * The radar page's endpoint: the participants the rules find (radar-rules.ts), of the programs in the caller's scope,
 * from the participant index as last refreshed, so an answer reads no table.
 */
export function radarRoutes(d: {
  participants: Pick<ParticipantIndex, 'snapshot'>;
  now?: () => number;
}): ConsoleRoute[] {
  const now = d.now ?? (() => Date.now() / 1000);
  return [
    route({
      method: 'get',
      path: '/admin/api/radar',
      summary: 'Participants whose phones stopped collecting: silent, pushing without locations, tracking off',
      programScoped: true,
      query: RadarQuery,
      response: RadarPage,
      handle: async ({ query, ctx }) => {
        const { rows, asOf } = d.participants.snapshot();
        const findings = radarFindings(rows, { now: now(), hours: query.hours, scope: scopeOf(ctx) });
        return radarPage(findings, query, asOf);
      },
    }),
  ];
}
