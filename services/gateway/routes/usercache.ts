import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { RecordMetadata } from 'kafkajs';
import { PayloadTooLargeError, ValidationError } from '../../../shared/errors/index.js';
import type { UsercacheEntry } from '../../../shared/events/index.js';
import { acceptPutEntries, PutRejection, toRecordsWithin } from '../domain/put-entries.js';
import { bodyOf } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import type { UsercachePublisher } from '../ingest/kafka-usercache-publisher.js';
import type { DocumentReader } from './stores.js';
import type { WebLog } from '../web-log.js';
import { loggableToken } from '../auth/resolve-token.js';
import { identifyUser, type IdentifyDeps } from './identify-user.js';

export interface UsercacheDeps extends IdentifyDeps {
  publisher: UsercachePublisher;
  documents: DocumentReader;
  webLog: WebLog;
  /** Most entries one put may carry; the phone sends at most 10,000. @defaultValue 50000 */
  maxEntriesPerPut?: number;
  onAccepted?: (count: number) => void;
}

/** The identity of an entry: (type, key, write_ts) within a user. */
function identity(e: UsercacheEntry): string {
  return `${e.type}\u0000${e.key}\u0000${e.writeTs}`;
}

/**
 * One line per entry, as e-mission writes them, with the broker's acknowledgement as the store's write result.
 * `updatedExisting` is true for an entry whose identity came earlier in the same batch; across calls, the
 * timeseries upsert makes a re-push overwrite the same row.
 */
function logEntryResults(
  webLog: WebLog,
  userId: string,
  entries: readonly UsercacheEntry[],
  acks: RecordMetadata[],
): void {
  if (!webLog.isLevelEnabled('debug')) return;
  const ack = acks[0];
  const base = ack ? Number(ack.baseOffset ?? ack.offset ?? 0) : 0;
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const id = identity(e);
    const result = {
      n: 1,
      ok: 1,
      updatedExisting: seen.has(id),
      topic: ack?.topicName,
      partition: ack?.partition,
      offset: base + i,
    };
    seen.add(id);
    webLog.debug(
      `Updated result for user = ${userId}, key = ${e.key}, write_ts = ${e.writeTs} = ${JSON.stringify(result)}`,
    );
  });
}

export function usercacheRoutes(deps: UsercacheDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const maxEntries = deps.maxEntriesPerPut ?? 50_000;

  async function put(entriesJson: unknown, ctx: ParameterizedContext<GatewayState>) {
    const user = await identifyUser(ctx, deps);
    const accepted = acceptPutEntries(entriesJson, maxEntries);
    if (accepted instanceof PutRejection)
      throw new ValidationError(accepted.message, { details: { entry_index: accepted.index } });
    deps.webLog.debug(
      `user_email = ${loggableToken(user.userEmail, deps.auth)} -> uuid = ${user.uuid}, ${accepted.length} entries`,
    );
    if (accepted.length === 0) {
      deps.webLog.info(`For ${user.uuid}, no entries to put`);
      return;
    }
    const records = toRecordsWithin(user.uuid, accepted, Date.now() / 1000);
    if (records instanceof PutRejection)
      throw new PayloadTooLargeError(records.message, { details: { entry_index: records.index } });
    const acks = await deps.publisher.publish(user.uuid, records);
    logEntryResults(deps.webLog, user.uuid, accepted, acks);
    deps.onAccepted?.(accepted.length);
  }

  router.post('/usercache/put', async (ctx) => {
    await put(bodyOf(ctx.request.body)['phone_to_server'], ctx);
    ctx.body = {};
  });

  router.post('/usercache/putone', async (ctx) => {
    const entry = bodyOf(ctx.request.body)['the_entry'];
    if (entry === undefined) throw new ValidationError('the_entry is missing');
    await put([entry], ctx);
    ctx.body = { putone: true };
  });

  router.post('/usercache/get', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    ctx.body = { server_to_phone: await deps.documents.list(user.uuid) };
  });

  return router;
}
