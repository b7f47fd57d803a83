import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Router from '@koa/router';
import { bodyOf } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import { identifyUser, requireRealAuth, type IdentifyDeps } from './identify-user.js';
import type { RateLimits } from '../rate-limits.js';
import type { UserExports } from '../stores.js';

export interface ExportDeps extends IdentifyDeps {
  exports: UserExports;
  rateLimits: RateLimits;
  /** Milliseconds since the epoch: "today" of the default range. @defaultValue Date.now */
  now?: () => number;
  /** How long the download may stall (the client reading nothing) before the connection is closed. */
  idleTimeoutMs: number;
}

/**
 * `POST /export/<format>` with `{user, start_date?, end_date?}`: the caller's own data of those UTC days (the
 * last 30 by default, at most 366) as a download, streamed as the client reads it (its pace sets how fast
 * Cassandra is read). Formats: ndjson (raw entries), geojson, gpx, trips-csv, sections-csv (composite trips).
 */
/**
 * A client that stops reading keeps its export's slot, and the Cassandra reads behind it, for as long as it stalls.
 * A stall is the answer waiting on the client (its buffer full, nothing more taken by the socket) for `idleMs`; a
 * slow read on the server's side leaves the buffer empty and is not one. The connection is then closed, which ends
 * the body and frees the slot. The socket's own timeout is left alone: Node uses it for the kept-alive connection
 * once the answer ends.
 */
function closeWhenStalled(socket: Socket, res: ServerResponse, idleMs: number): void {
  let written = socket.bytesWritten;
  let waitingSince = Date.now();
  const check = setInterval(
    () => {
      const now = Date.now();
      if (!res.writableNeedDrain || socket.bytesWritten !== written) {
        written = socket.bytesWritten;
        waitingSince = now;
      } else if (now - waitingSince >= idleMs) {
        socket.destroy();
      }
    },
    Math.max(50, Math.floor(idleMs / 4)),
  );
  check.unref();
  res.once('close', () => clearInterval(check));
}

export function exportRoutes(deps: ExportDeps): Router<GatewayState> {
  const now = deps.now ?? Date.now;
  const router = new Router<GatewayState>();

  router.post('/export/:format', async (ctx) => {
    requireRealAuth(deps, 'export');
    const asked = deps.exports.ask(ctx.params['format'] ?? '', bodyOf(ctx.request.body), now());
    const user = await identifyUser(ctx, deps);
    await deps.rateLimits.take('export', ctx.ip, user.userEmail);
    const exported = await deps.exports.open(user.uuid, asked);
    ctx.type = exported.contentType;
    ctx.set('Content-Disposition', `attachment; filename="${asked.fileName}"`);
    ctx.body = exported.body;
    closeWhenStalled(ctx.req.socket, ctx.res, deps.idleTimeoutMs);
  });

  return router;
}
