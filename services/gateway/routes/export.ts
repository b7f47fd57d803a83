import Router from '@koa/router';
import { NotFoundError } from '../../../shared/errors/index.js';
import { attachmentFileName, EXPORT_FORMATS, isExportFormat } from '../../export/domain/export-formats.js';
import { parseExportRange, utcDate } from '../../export/domain/export-range.js';
import { bodyOf } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import { identifyUser, requireRealAuth, type IdentifyDeps } from './identify-user.js';
import type { RateLimits } from '../rate-limits.js';
import type { UserExports } from './stores.js';

export interface ExportDeps extends IdentifyDeps {
  exports: UserExports;
  rateLimits: RateLimits;
  /** Milliseconds since the epoch: "today" of the default range. @defaultValue Date.now */
  now?: () => number;
}

const FORMAT_LIST = Object.keys(EXPORT_FORMATS).join(', ');

/**
 * `POST /export/<format>` with `{user, start_date?, end_date?}`: the caller's own data of those UTC days (the
 * last 30 by default, at most 366) as a download, streamed as the client reads it (its pace sets how fast
 * Cassandra is read). Formats: ndjson (raw entries), geojson, gpx, trips-csv, sections-csv (composite trips).
 */
export function exportRoutes(deps: ExportDeps): Router<GatewayState> {
  const now = deps.now ?? Date.now;
  const router = new Router<GatewayState>();

  router.post('/export/:format', async (ctx) => {
    requireRealAuth(deps, 'export');
    const format = ctx.params['format'] ?? '';
    if (!isExportFormat(format))
      throw new NotFoundError(`no export as ${format.slice(0, 40)}; use one of ${FORMAT_LIST}`);
    const range = parseExportRange(bodyOf(ctx.request.body), utcDate(now()));
    const user = await identifyUser(ctx, deps);
    await deps.rateLimits.take('export', ctx.ip, user.userEmail);
    const exported = await deps.exports.open({ format, userId: user.uuid, range });
    ctx.type = exported.contentType;
    ctx.set(
      'Content-Disposition',
      `attachment; filename="${attachmentFileName(format, range.fromDate, range.toDate)}"`,
    );
    ctx.body = exported.body;
  });

  return router;
}
