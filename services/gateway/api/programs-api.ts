import { z } from 'zod';
import { DeploymentConfig, json } from './phone-schemas.js';
import { routeGroup } from './phone-route.js';

/** routes/programs.ts and routes/join.ts: what anyone may read of a program, without a token. */

const Program = z.object({ program: z.string().meta({ description: 'The program’s name', example: 'study' }) });

const programUnreadable = 'The program’s stored configuration could not be read: retry after `Retry-After`';

export const programsApi = routeGroup('programs', [
  {
    method: 'get',
    path: '/programs/:program/config.json',
    summary: 'The program’s configuration, for an app build whose configuration URL points here',
    params: Program,
    answers: {
      200: {
        description: 'The configuration, readable from any origin, its version as ETag',
        content: json(DeploymentConfig),
        headers: z.object({
          ETag: z.string().meta({ description: 'The configuration’s version' }),
          'Cache-Control': z.string(),
        }),
      },
      304: { description: 'Not modified since the version in If-None-Match' },
    },
    refusals: { 404: 'The deployment serves no such program', 503: programUnreadable },
  },
  {
    method: 'get',
    path: '/join/:program',
    summary: 'The program’s join page: a new token as a QR code and as the app’s login links',
    description:
      'Only where the program lets phones make their own tokens; a program that admits by invitation, or is closed, gets a page saying so. Each visit makes a new token.',
    params: Program,
    query: z.object({
      sub_group: z
        .string()
        .optional()
        .meta({ description: 'The subgroup the token is for; asked when there are several' }),
      tester: z.enum(['true', 'false']).optional().meta({ description: '`true`: a tester’s token' }),
    }),
    answers: { 200: { description: 'An HTML page', content: { 'text/html': z.string() } } },
    refusals: { 404: 'The deployment serves no such program', 503: programUnreadable },
  },
]);
