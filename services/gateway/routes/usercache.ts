import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { WrittenAt } from '../../../shared/kafka/index.js';
import { PayloadTooLargeError, ValidationError } from '../../../shared/errors/index.js';
import {
  acceptPutEntries,
  MAX_ENTRIES_PER_PUT,
  PutRejection,
  toRecordsWithin,
  type UsercacheRecord,
} from '../../../shared/events/index.js';
import { recordsFromTexts } from '../domain/put-entries.js';
import type { PutEntryTexts } from '../domain/put-layout.js';
import { bodyOf } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import type { UsercachePublisher } from '../ingest/kafka-usercache-publisher.js';
import type { DocumentReader } from '../stores.js';
import type { WebLog } from '../web-log.js';
import { entryKey } from '../../../shared/ids/entry-identity.js';
import { loggableToken } from '../../../shared/ids/token-digest.js';
import { logLines } from '../../../shared/logger/index.js';
import { identifyUser, identifyWriter, type IdentifyDeps } from './identify-user.js';

export interface UsercacheDeps extends IdentifyDeps {
  publisher: UsercachePublisher;
  documents: DocumentReader;
  webLog: WebLog;
  /** Most entries one put may carry. @defaultValue MAX_ENTRIES_PER_PUT */
  maxEntriesPerPut?: number;
  onAccepted?: (count: number) => void;
  /** Entries of a suspended subgroup's put, which is answered and stored nowhere. */
  onIgnored?: (program: string, count: number) => void;
}

/** The identity of an entry (shared/ids/entry-identity.ts). */
const identity = (r: UsercacheRecord) => entryKey(r.user_id, r.type, r.key, r.write_ts);

/**
 * One line per entry, as e-mission writes them, with the broker's acknowledgement as the store's write result, all
 * written as one log record (logLines). `updatedExisting` is true for an entry whose identity came earlier in the
 * same batch; across calls, the timeseries upsert makes a re-push overwrite the same row.
 */
function logEntryResults(
  webLog: WebLog,
  userId: string,
  records: readonly UsercacheRecord[],
  acks: readonly WrittenAt[],
): void {
  if (!webLog.isLevelEnabled('debug')) return;
  const ack = acks[0];
  const base = ack ? Number(ack.baseOffset) : 0;
  // JSON.stringify of {n, ok, updatedExisting, topic, partition, offset}, composed by hand: 10,000 times a put.
  const where = `"topic":${JSON.stringify(ack?.topic)},"partition":${JSON.stringify(ack?.partition)}`;
  const seen = new Set<string>();
  const lines = records.map((r, i) => {
    const id = identity(r);
    const updatedExisting = seen.has(id);
    seen.add(id);
    const result = `{"n":1,"ok":1,"updatedExisting":${updatedExisting},${where},"offset":${base + i}}`;
    return `Updated result for user = ${userId}, key = ${r.key}, write_ts = ${r.write_ts} = ${result}`;
  });
  logLines(webLog, 'debug', lines);
}

/** A put's entries: as text left by middleware/put-body.ts, or a parsed list (putone, and bodies parsed whole). */
type PutSource = { texts: PutEntryTexts } | { list: unknown };

export function usercacheRoutes(deps: UsercacheDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const maxEntries = deps.maxEntriesPerPut ?? MAX_ENTRIES_PER_PUT;

  /** The records of a put: from entries left as text by middleware/put-body.ts, or from a parsed list. */
  function recordsOf(userId: string, source: PutSource): UsercacheRecord[] {
    const receivedTs = Date.now() / 1000;
    let records: UsercacheRecord[] | PutRejection;
    if ('texts' in source) records = recordsFromTexts(userId, source.texts, receivedTs, maxEntries);
    else {
      const accepted = acceptPutEntries(source.list, maxEntries);
      records = accepted instanceof PutRejection ? accepted : toRecordsWithin(userId, accepted, receivedTs);
    }
    if (records instanceof PutRejection) {
      const Refusal = records.tooLarge ? PayloadTooLargeError : ValidationError;
      throw new Refusal(records.message, { details: { entry_index: records.index } });
    }
    return records;
  }

  /** Stores a put's entries; the answer's body: `{}`, or the program's configuration when the phone's is outdated. */
  async function put(source: PutSource, ctx: ParameterizedContext<GatewayState>): Promise<Record<string, unknown>> {
    const { user, member } = await identifyWriter(ctx, deps);
    if (member?.suspended) {
      // As e-mission does: the phone is answered as usual (so it stops retrying and clears its cache) and nothing
      // is kept. The operator sees the count in itinera_gateway_entries_ignored_total.
      const count = 'texts' in source ? source.texts.count : Array.isArray(source.list) ? source.list.length : 0;
      deps.webLog.info(
        `For ${user.uuid}, ignoring ${count} entries: subgroup ${member.subgroup} of ${member.program} is suspended`,
      );
      deps.onIgnored?.(member.program, count);
      return {};
    }
    const records = recordsOf(user.uuid, source);
    deps.webLog.debug(
      `user_email = ${loggableToken(user.userEmail)} -> uuid = ${user.uuid}, ${records.length} entries`,
    );
    if (records.length === 0) deps.webLog.info(`For ${user.uuid}, no entries to put`);
    else {
      const acks = await deps.publisher.publish(user.uuid, records);
      logEntryResults(deps.webLog, user.uuid, records, acks);
      deps.onAccepted?.(records.length);
    }
    if (!member || !deps.programs) return {};
    const body = bodyOf(ctx.request.body);
    return deps.programs.putReply(member.program, {
      deploymentConfigVersion: body['deployment_config_version'],
      appVersion: body['app_version'],
    });
  }

  router.post('/usercache/put', async (ctx) => {
    const texts = ctx.state.putEntries;
    ctx.body = await put(texts ? { texts } : { list: bodyOf(ctx.request.body)['phone_to_server'] }, ctx);
  });

  router.post('/usercache/putone', async (ctx) => {
    const entry = bodyOf(ctx.request.body)['the_entry'];
    if (entry === undefined) throw new ValidationError('the_entry is missing');
    await put({ list: [entry] }, ctx);
    ctx.body = { putone: true };
  });

  router.post('/usercache/get', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    ctx.body = { server_to_phone: await deps.documents.list(user.uuid) };
  });

  return router;
}
