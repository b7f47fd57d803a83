import { z } from 'zod';
import { MAX_ENTRIES_PER_PUT } from '../../../shared/events/index.js';
import { DeploymentConfig, json, PhoneEntry, StoredEntry, Token } from './phone-schemas.js';
import { routeGroup, WRITER_CALL_REFUSALS } from './phone-route.js';
import { userBodyCall } from './user-body-call.js';

/** routes/usercache.ts: the phone's pushes (puts) and the documents it pulls. */

const Put = z
  .looseObject({
    user: Token,
    phone_to_server: z.array(PhoneEntry).max(MAX_ENTRIES_PER_PUT),
    deployment_config_version: z
      .number()
      .optional()
      .meta({ description: 'The version of its program’s configuration the phone holds' }),
    app_version: z.string().optional(),
  })
  .meta({ id: 'Put' });

const PutAnswer = z
  .object({
    deployment_config: DeploymentConfig.optional().meta({
      description: 'Only when the phone’s copy of its program’s configuration is outdated',
    }),
  })
  .meta({ id: 'PutAnswer' });

const ServerToPhone = z
  .object({
    server_to_phone: z.array(StoredEntry).meta({
      description: 'Every current document of the user (type `document`), oldest first: the phone replaces all it had',
    }),
  })
  .meta({ id: 'ServerToPhone' });

const location = {
  metadata: { key: 'background/location', platform: 'android', type: 'sensor-data', write_ts: 1_700_000_000 },
  data: { latitude: 39.59, longitude: -104.98, accuracy: 20, ts: 1_699_999_999 },
};

const putRefusals = {
  ...WRITER_CALL_REFUSALS,
  400: 'A malformed body or entry (`entry_index` names the first bad one), or more entries than one put takes',
  413: 'The body is larger than this route takes, or an entry is too large to carry (`entry_index`)',
  503: 'Too many puts wait already, or Kafka did not acknowledge in time: retry after `Retry-After`; nothing was stored',
};

export const usercacheApi = routeGroup('usercache', [
  {
    method: 'post',
    path: '/usercache/put',
    summary: 'Store the phone’s entries (all or none)',
    description:
      'Each entry goes to the usercache topic; the answer is `{}`, or the program’s configuration when the phone’s copy is outdated. A put from a suspended subgroup is answered as usual and stored nowhere.',
    body: Put,
    example: { user: 'alice@example.org', phone_to_server: [location] },
    validatedBy: 'shared/events/usercache-put-rules.ts checkEntry, through domain/put-entries.ts',
    answers: { 200: { description: 'Stored', content: json(PutAnswer) } },
    refusals: putRefusals,
  },
  {
    method: 'post',
    path: '/usercache/putone',
    summary: 'Store one entry',
    body: z.looseObject({ user: Token, the_entry: PhoneEntry }).meta({ id: 'PutOne' }),
    example: { user: 'alice@example.org', the_entry: location },
    validatedBy: 'shared/events/usercache-put-rules.ts checkEntry',
    answers: { 200: { description: 'Stored', content: json(z.object({ putone: z.literal(true) })) } },
    refusals: putRefusals,
  },
  userBodyCall({
    path: '/usercache/get',
    summary: 'The documents the server keeps for the phone (its trips to label, its configuration)',
    answers: { 200: { description: 'The documents', content: json(ServerToPhone) } },
  }),
]);
