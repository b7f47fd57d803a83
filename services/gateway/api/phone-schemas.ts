import { z } from 'zod';
import { errorCodes } from '../../../shared/errors/index.js';
import { DeploymentConfigSchema } from '../../../shared/programs/domain/deployment-config.js';

/*
 * The shapes most of the phone API shares: the token every body carries, the error answer, entries and ids as the
 * phone reads them. Timestamps are Unix seconds, as in e-mission's entries.
 */

/** e-mission's `user`: the token the app holds, which is the account's name. */
export const Token = z.string().min(1).meta({
  description:
    'The participant’s token (e-mission’s `user`): printable characters, of bounded length; checked against the deployment’s auth mode and, for a program’s token, its program’s rules',
  example: 'nrelop_study_default_Xf3kq8s2PAvL0q',
});

/** The body of a call that only says who calls. */
export const UserBody = z.looseObject({ user: Token }).meta({ id: 'UserBody' });

/** The answer of every refusal (shared/http/error-handler.ts): a code, a message, and the details that apply. */
export const ErrorAnswer = z
  .object({
    error: z.looseObject({
      code: z.enum([...errorCodes, 'INTERNAL']),
      message: z.string(),
      field: z.string().optional().meta({ description: 'The request field at fault' }),
      limit: z.number().optional().meta({ description: 'The bound that was passed' }),
      retry_after_seconds: z
        .number()
        .optional()
        .meta({ description: 'When a retry can help (429, 503): as the `Retry-After` header' }),
      request_id: z.string().optional().meta({ description: 'A 500: the id printed with the stack' }),
    }),
  })
  .meta({ id: 'ErrorAnswer' });

export const RetryAfter = z.object({
  'Retry-After': z.string().meta({ description: 'Seconds to wait before trying again' }),
});

/** A uuid as the phone reads it: Mongo's extended JSON, 32 hex digits without dashes. */
export const BsonUuid = z.object({ $uuid: z.string().regex(/^[0-9a-f]{32}$/) }).meta({ id: 'BsonUuid' });

/**
 * One entry of a put, as the phone writes it (checked by shared/events/usercache-put-rules.ts checkEntry): the
 * envelope is checked, the payload in `data` is the converter's to judge.
 */
export const PhoneEntry = z
  .looseObject({
    metadata: z.looseObject({
      key: z.string().min(1).meta({ description: 'e-mission’s key, printable ASCII', example: 'background/location' }),
      write_ts: z.number().positive().meta({ description: 'Seconds since 1970 (milliseconds are converted)' }),
      type: z
        .enum(['message', 'sensor-data', 'rw-document'])
        .optional()
        .meta({ description: 'Taken from the key when absent' }),
      platform: z.string().optional(),
      time_zone: z.string().optional(),
    }),
    data: z.looseObject({}),
  })
  .meta({ id: 'PhoneEntry' });

/** An entry as the server stores and answers it (find_entries, the usercache documents). */
export const StoredEntry = z
  .looseObject({ metadata: z.looseObject({ key: z.string(), write_ts: z.number() }), data: z.unknown() })
  .meta({ id: 'StoredEntry' });

/** A program's configuration, with the schema that checks it when an operator saves it. */
export const DeploymentConfig = DeploymentConfigSchema.meta({ id: 'DeploymentConfig' });

export const json = (schema: z.ZodType) => ({ 'application/json': schema });
