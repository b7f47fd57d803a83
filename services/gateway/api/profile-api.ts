import { z } from 'zod';
import { BsonUuid, json, Token } from './phone-schemas.js';
import { routeGroup, USER_CALL_REFUSALS, WRITER_CALL_REFUSALS } from './phone-route.js';
import { userBodyCall } from './user-body-call.js';

/** routes/profile.ts: registration, the profile the app shows, and the user's own deletion of their account. */

const Registered = z.object({ uuid: z.uuid() }).meta({ id: 'Registered' });

const Profile = z
  .looseObject({
    source: z.string().optional(),
    create_ts: z.number().optional(),
    mode: z.record(z.string(), z.unknown()).optional(),
    purpose: z.record(z.string(), z.unknown()).optional(),
    pipeline_range: z.object({ start_ts: z.number().nullable(), end_ts: z.number().nullable() }),
    total_trips: z.int(),
    labeled_trips: z.int().meta({ description: 'The app asks for feedback at 50' }),
    user_id: BsonUuid,
  })
  .meta({
    id: 'Profile',
    description: 'The stored profile (with the fields /profile/update set) and the trip builder’s progress and counts',
  });

const ProfileUpdate = z
  .looseObject({
    user: Token,
    update_doc: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The fields to set; `user_id` is the server’s and is ignored' }),
  })
  .meta({ id: 'ProfileUpdate' });

const AccountDeleted = z
  .object({
    deleted: z.literal(true),
    timeseries_partitions: z.int(),
    documents: z.int(),
    took_ms: z.number(),
  })
  .meta({ id: 'AccountDeleted' });

const tooOften = 'Too many calls from this address or token: retry after `Retry-After`';

export const profileApi = routeGroup('profile', [
  userBodyCall({
    path: '/profile/create',
    summary: 'Register the token (again): the account’s uuid, the same for the same token',
    validatedBy: 'auth/admit-caller.ts admitCaller',
    answers: { 200: { description: 'The account, made if it was not', content: json(Registered) } },
    refusals: {
      ...USER_CALL_REFUSALS,
      400: 'A malformed body, a token with control characters, or a token shaped like a uuid (reserved for imported accounts)',
      403: 'The token is not accepted by the deployment or its program, was revoked, or its program is closed',
      429: tooOften,
    },
  }),
  userBodyCall({
    path: '/profile/get',
    summary: 'The user’s profile, with the pipeline’s range and trip counts',
    answers: { 200: { description: 'The profile', content: json(Profile) } },
  }),
  {
    method: 'post',
    path: '/profile/update',
    summary: 'Set fields of the user’s profile',
    body: ProfileUpdate,
    example: { user: 'alice@example.org', update_doc: { curr_platform: 'android', client_app_version: '1.9.6' } },
    validatedBy: 'domain/parse-profile-update.ts parseProfileUpdate',
    answers: { 200: { description: 'Saved', content: json(z.object({ update: z.literal(true) })) } },
    refusals: WRITER_CALL_REFUSALS,
  },
  userBodyCall({
    path: '/profile/delete',
    summary: 'Delete the account and all its data; the token then answers 403 until it registers again',
    description:
      'Not in e-mission’s API: the app’s settings, or a study’s page holding the token, call it. Refused where tokens are e-mails (auth `skip`) and the gateway is reachable from the network.',
    answers: { 200: { description: 'What was deleted', content: json(AccountDeleted) } },
    refusals: {
      ...USER_CALL_REFUSALS,
      403: 'The token is refused or names no account, or this server takes e-mails as tokens and is reachable from the network',
      429: tooOften,
      503: 'Too many deletions at once, or Cassandra did not answer: retry after `Retry-After`',
    },
  }),
]);
