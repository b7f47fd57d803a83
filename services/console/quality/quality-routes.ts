import { route, type ConsoleRoute } from '../api/route-table.js';
import type { ParticipantScope } from '../scope/participant-scope.js';
import type { DayQualityReader } from '../../../shared/quality/day-quality.js';
import { ParticipantQuality, QualityParams, QualityQuery } from './quality-schemas.js';

/** The completeness of one participant's days, for a caller whose programs include the participant's. */
export function qualityRoutes(d: { scope: ParticipantScope; quality: DayQualityReader }): ConsoleRoute[] {
  return [
    route({
      method: 'get',
      path: '/admin/api/users/:userId/quality',
      summary: 'How complete each local day of a participant’s data is: score, gaps and why, labelled trips',
      programScoped: true,
      params: QualityParams,
      query: QualityQuery,
      response: ParticipantQuality,
      handle: async ({ params, query, scope }) => {
        await d.scope.assertVisible(scope, params.userId);
        return d.quality(params.userId, query);
      },
    }),
  ];
}
