import Router from '@koa/router';
import { ForbiddenError, ValidationError } from '../../../shared/errors/index.js';
import { admitCaller } from '../auth/admit-caller.js';
import { bsonUuid } from '../../../shared/ids/entry-identity.js';
import { loggableToken } from '../../../shared/ids/token-digest.js';
import { parseProfileUpdate } from '../domain/parse-profile-update.js';
import { bodyOf } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import type { AccountDeletion, PipelineStateReader, ProfileStore } from '../stores.js';
import { identifyUser, identifyWriter, requireRealAuth, type IdentifyDeps } from './identify-user.js';
import { isUuidShaped } from '../../../shared/ids/uuid-shaped.js';
import type { RateLimits } from '../rate-limits.js';
import type { WebLog } from '../web-log.js';

export function profileRoutes(
  deps: IdentifyDeps & {
    profiles: ProfileStore;
    pipeline: PipelineStateReader;
    webLog: WebLog;
    accounts: AccountDeletion;
    rateLimits: RateLimits;
  },
): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/profile/create', async (ctx) => {
    const { userEmail, member } = await admitCaller(ctx.request.body, deps);
    if (member?.closed !== undefined) throw new ForbiddenError(member.closed, { details: { program: member.program } });
    await deps.rateLimits.take('profile-create', ctx.ip, userEmail);
    if (isUuidShaped(userEmail))
      throw new ValidationError('a token shaped like a uuid is reserved for accounts imported without their token', {
        details: { field: 'user' },
      });
    const { user, created } = await deps.users.register(userEmail);
    if (created) {
      await deps.profiles.create(user.uuid, {
        source: 'Itinera',
        create_ts: user.createTs.getTime() / 1000,
        mode: {},
        purpose: {},
      });
    }
    // The END line of this call carries no uuid: the spec observes it so, the user being created by the call.
    deps.webLog.debug(`retUUID = ${user.uuid} for user_email = ${loggableToken(userEmail)} (created = ${created})`);
    ctx.body = { uuid: user.uuid };
  });

  router.post('/profile/get', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    const [profile, progress, counts] = await Promise.all([
      deps.profiles.get(user.uuid),
      deps.pipeline.progress(user.uuid),
      deps.pipeline.tripCounts(user.uuid),
    ]);
    // The pipeline-dependent stats e-mission keeps in the profile: the app asks for feedback at 50 labelled trips.
    ctx.body = {
      ...(profile ?? {}),
      pipeline_range: { start_ts: progress.rangeStartTs, end_ts: progress.rangeEndTs },
      total_trips: counts.totalTrips,
      labeled_trips: counts.labeledTrips,
      user_id: bsonUuid(user.uuid),
    };
  });

  router.post('/profile/update', async (ctx) => {
    const { user } = await identifyWriter(ctx, deps);
    await deps.profiles.update(user.uuid, parseProfileUpdate(bodyOf(ctx.request.body)));
    ctx.body = { update: true };
  });

  /**
   * The user's own deletion of their account and all its data (Google Play requires one in the app). Not in
   * e-mission's API: the app's settings (or a study's web page holding the token) call it with the usual body.
   * Afterwards the token answers 403; calling /profile/create with it starts a new, empty account.
   */
  router.post('/profile/delete', async (ctx) => {
    requireRealAuth(deps, 'account deletion');
    const user = await identifyUser(ctx, deps);
    await deps.rateLimits.take('profile-delete', ctx.ip, user.userEmail);
    const { timeseriesPartitions, documents, tookMs } = await deps.accounts.delete(user.uuid);
    ctx.body = { deleted: true, timeseries_partitions: timeseriesPartitions, documents, took_ms: tookMs };
  });

  return router;
}
