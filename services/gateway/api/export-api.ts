import { z } from 'zod';
import { Token } from './phone-schemas.js';
import { BODY_REFUSALS, routeGroup, TOKEN_REFUSALS } from './phone-route.js';

/**
 * routes/export.ts: a participant's download of their own data. The formats and the range rules belong to the
 * export service (services/export/phone-exports.ts), which the gateway is handed and does not import: the format
 * is documented as a name, and the server's 404 lists those it offers.
 */

const ExportRequest = z
  .looseObject({
    user: Token,
    start_date: z.iso.date().optional().meta({ description: 'First UTC day; 30 days before end_date when absent' }),
    end_date: z.iso.date().optional().meta({ description: 'Last UTC day, included; today when absent' }),
  })
  .meta({ id: 'ExportRequest', description: 'At most a year of days per call' });

export const exportApi = routeGroup('export', [
  {
    method: 'post',
    path: '/export/:format',
    summary: 'The user’s own data of some UTC days, as a file',
    description:
      'Streamed at the pace the client reads it; a client that stops reading is disconnected. Formats: ndjson (the raw entries), geojson, gpx, trips-csv and sections-csv (the trips), days-csv (each local day’s completeness).',
    params: z.object({ format: z.string().meta({ description: 'The file’s format', example: 'geojson' }) }),
    body: ExportRequest,
    example: { user: 'alice@example.org', start_date: '2024-05-01', end_date: '2024-05-31' },
    validatedBy: 'services/export/domain/export-range.ts parseExportRange, through the export service',
    answers: {
      200: {
        description: 'The file, of the format’s media type',
        content: { '*/*': z.string().meta({ format: 'binary' }) },
        headers: z.object({
          'Content-Disposition': z
            .string()
            .meta({ description: 'attachment; filename="itinera-<format>-<first>-<last>.<ext>"' }),
        }),
      },
    },
    refusals: {
      ...BODY_REFUSALS,
      ...TOKEN_REFUSALS,
      400: 'A malformed body, a date that is no date, a start after the end, or more days than one call exports',
      403: 'A refused token, or this server takes e-mails as tokens and is reachable from the network',
      404: 'A format the server does not offer: the message lists those it does',
      409: 'An export of this user is still running',
      429: 'Too many exports from this address or token: retry after `Retry-After`',
      503: 'Too many exports at once, or Cassandra did not answer: retry after `Retry-After`',
    },
  },
]);
