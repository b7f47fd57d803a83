import type { KafkaMessage } from 'kafkajs';
import { isOutage } from '../../shared/errors/classify.js';
import { entryObjectId } from '../../shared/ids/entry-identity.js';
import { topicName, toTimeseriesRecord, type UsercacheEntry, type UsercacheRecord } from '../../shared/events/index.js';
import { sendSeparatingRefusals, type BatchHandler, type KeyedProducer } from '../../shared/kafka/index.js';
import type { Logger } from '../../shared/logger/index.js';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import type { DeletedUsersTable, ParticipantActivityTable, ParticipantDaysTable } from '../../shared/tables/index.js';
import { storeDeadLetter, type DeadLetter, type ErrorTimeseries } from '../../shared/timeseries/index.js';
import { convertEntry, type Conversion } from './domain/convert-entry.js';
import { daySensing } from './domain/day-sensing.js';
import { pushActivity } from './domain/push-activity.js';
import { sensingActivity } from './domain/sensing-activity.js';
import {
  replaysToClear,
  sortBatch,
  withRefusals,
  type BatchMessage,
  type BatchSource,
  type Converted,
  type SortedBatch,
} from './domain/sort-batch.js';
import type { TimeseriesWriter } from './stores.js';

/** Header set by fix-usercache-processing on replayed dead letters: a success must clear the error row. */
export const REPLAY_HEADER = 'itinera-replay';

export interface ConverterDeps {
  codec: AvroCodec;
  timeseries: TimeseriesWriter;
  errors: ErrorTimeseries;
  producer: KeyedProducer;
  topicPrefix: string;
  logger: Logger;
  /** The spec's pipeline log (intake_<n>.log.gz). */
  intakeLog: Logger;
  /** The conversion rules; a new version of them is how a conversion bug gets fixed. @defaultValue convertEntry */
  convert?: (entry: UsercacheEntry) => Conversion;
  /**
   * Deleted accounts: their entries still in the topic (a put in flight during the deletion, a reset-pipeline
   * replaying the retained topic) are dropped, never stored again.
   */
  deletedUsers?: Pick<DeletedUsersTable, 'isDeleted' | 'isDeletedNow'>;
  /**
   * Erases a user deleted while the batch was written (what the batch stored, and anything else left): a deletion
   * writes its mark before it erases, and the batch reads the mark after it wrote, so one of the two erasures comes
   * after the batch's writes whatever their order.
   */
  eraseDeleted?: (userId: string) => Promise<unknown>;
  /** Where each user's first and last push and platform are kept for the operators' console. */
  activity?: Pick<ParticipantActivityTable, 'record'>;
  /** Where what each phone sensed is added to its local day, for the day's completeness score. */
  days?: Pick<ParticipantDaysTable, 'record'>;
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A record that is not ours to read (wrong schema, corrupt bytes) is a dead letter; a registry outage is not. */
async function decode(codec: AvroCodec, message: KafkaMessage): Promise<BatchMessage> {
  const offset = Number(message.offset);
  try {
    const record = await codec.decode<UsercacheRecord>(message.value as Buffer);
    return { offset, ok: true, record, replayed: !!message.headers?.[REPLAY_HEADER] };
  } catch (err) {
    if (isOutage(err)) throw err;
    const raw = {
      key: message.key?.toString() ?? null,
      timestampMs: Number(message.timestamp),
      base64: message.value?.toString('base64') ?? null,
    };
    return { offset, ok: false, raw, error: describe(err) };
  }
}

/** The batch without the entries of deleted accounts: asked once per user of the batch, not once per entry. */
async function withoutDeletedUsers(deps: ConverterDeps, messages: BatchMessage[]): Promise<BatchMessage[]> {
  const deletedUsers = deps.deletedUsers;
  if (!deletedUsers) return messages;
  const users = new Set(messages.flatMap((m) => (m.ok ? [m.record.user_id] : [])));
  const deleted = new Set<string>();
  for (const user of users) if (await deletedUsers.isDeleted(user)) deleted.add(user);
  return deleted.size === 0 ? messages : messages.filter((m) => !m.ok || !deleted.has(m.record.user_id));
}

/** Reads each user's deletion mark again, afresh, once the batch is written; erases the users deleted meanwhile. */
async function eraseUsersDeletedMeanwhile(deps: ConverterDeps, messages: BatchMessage[]): Promise<void> {
  const { deletedUsers, eraseDeleted } = deps;
  if (!deletedUsers || !eraseDeleted) return;
  const users = new Set(messages.flatMap((m) => (m.ok ? [m.record.user_id] : [])));
  for (const user of users)
    if (await deletedUsers.isDeletedNow(user)) {
      deps.logger.info('Erased what a batch wrote for a user deleted meanwhile', { user });
      await eraseDeleted(user);
    }
}

/** Each user's record key as bytes, made once per user of a batch (a batch is mostly one user's thousands of entries). */
function userKeys(): (userId: string) => Buffer {
  const keys = new Map<string, Buffer>();
  return (userId) => keys.get(userId) ?? keys.set(userId, Buffer.from(userId)).get(userId)!;
}

/** Publishes stored entries' notices for the trip builder; returns those Kafka refused (sendSeparatingRefusals). */
async function publishConverted(deps: ConverterDeps, topic: string, converted: readonly Converted[]) {
  if (converted.length === 0) return [];
  const encode = await deps.codec.encoderFor(valueSubject(topic));
  const key = userKeys();
  return sendSeparatingRefusals(
    deps.producer,
    topic,
    converted.map((c) => ({ key: key(c.entry.userId), value: encode(toTimeseriesRecord(c.entry, c.startTs)) })),
  );
}

/** Logs each dead letter, writes it to the error table (storeDeadLetter), then publishes what was written. */
async function recordDeadLetters(deps: ConverterDeps, topic: string, letters: readonly DeadLetter[]): Promise<void> {
  if (letters.length === 0) return;
  const stored: DeadLetter[] = [];
  for (const letter of letters) {
    deps.logger.warn('Conversion failed', {
      key: letter.key,
      reason: letter.reason,
      partition: letter.source_partition,
      offset: letter.source_offset,
    });
    deps.intakeLog.warn(
      `Got error ${letter.reason} while saving entry ${letter.key} write_ts = ${letter.write_ts} for user ${letter.user_id}`,
    );
    deps.intakeLog.info(
      `Inserting entry ${letter.key} write_ts = ${letter.write_ts} for user ${letter.user_id} into error timeseries`,
    );
    stored.push(await storeDeadLetter({ errors: deps.errors, logger: deps.logger }, letter));
  }
  const encode = await deps.codec.encoderFor(valueSubject(topic));
  const key = userKeys();
  const refused = await sendSeparatingRefusals(
    deps.producer,
    topic,
    stored.map((l) => ({ key: key(l.user_id), value: encode(l) })),
  );
  // The error table holds every dead letter; the topic is a feed of them, so a refused one is only logged.
  for (const { index, error } of refused)
    deps.logger.error('Error-timeseries topic refused a dead letter; it is in the error table', {
      key: stored[index]?.key,
      offset: stored[index]?.source_offset,
      error: describe(error),
    });
}

/**
 * Waits for every write to settle before the first failure is thrown, so a batch retried after it never runs beside
 * a write of its failed attempt (one landing after the erasure of a user deleted meanwhile, say).
 */
async function allOrFirstFailure(writes: ReadonlyArray<Promise<void> | undefined>): Promise<void> {
  const failed = (await Promise.allSettled(writes)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

const entriesOf = (batch: SortedBatch) => batch.converted.map((c) => c.entry);

/**
 * Converts one batch of one partition: decodes it, sorts it (domain/sort-batch.ts), and carries out the result.
 * Order of effects, which is what makes a crash at any instant safe:
 * 1. every convertible entry is upserted into the timeseries (by identity: a replay rewrites the same rows);
 * 2. converted entries are published for the trip builder;
 * 3. every failure is written to the error table and the error-timeseries topic;
 * 3b. a user deleted while this was written is erased again (eraseUsersDeletedMeanwhile);
 * 4. only then is the batch's last offset resolved and committed (runWorker).
 * A crash before 4 redelivers the batch into idempotent writes. An outage (Cassandra or Kafka away, see isOutage)
 * is rethrown so kafkajs retries the batch. Anything else that stops one entry (it does not parse or convert, it
 * grows too large, Cassandra or Kafka refuse it) makes that entry a dead letter, so it cannot block its partition.
 */
export function createBatchHandler(deps: ConverterDeps): BatchHandler {
  const errorTopic = topicName(deps.topicPrefix, 'errorTimeseries');
  const timeseriesTopic = topicName(deps.topicPrefix, 'timeseries');
  const rules = { convert: deps.convert ?? convertEntry, objectId: entryObjectId };
  return async ({ batch, heartbeat }) => {
    const source = (): BatchSource => ({ topic: batch.topic, partition: batch.partition, now: Date.now() / 1000 });
    const decoded: BatchMessage[] = [];
    for (const message of batch.messages) decoded.push(await decode(deps.codec, message));
    const messages = await withoutDeletedUsers(deps, decoded);
    let sorted = sortBatch(messages, rules, source());

    const refusedByCassandra = await deps.timeseries.write(entriesOf(sorted));
    sorted = withRefusals(
      sorted,
      refusedByCassandra.map(({ entry, reason }) => ({ entry, failure: { kind: 'refused-by-cassandra', reason } })),
      source(),
    );
    await heartbeat();

    // Stored but not published: the trip builder would never see it. The dead letter's replay stores it again
    // (by identity) and publishes it.
    const stored = sorted.converted;
    const refusedByKafka = await publishConverted(deps, timeseriesTopic, stored);
    sorted = withRefusals(
      sorted,
      refusedByKafka.map(({ index, error }) => ({
        entry: (stored[index] as Converted).entry,
        failure: { kind: 'refused-by-kafka', error: describe(error) },
      })),
      source(),
    );

    await recordDeadLetters(deps, errorTopic, sorted.deadLetters);
    for (const r of replaysToClear(sorted)) await deps.errors.remove(r.user_id, r.key, r.write_ts, r.type);
    await allOrFirstFailure([
      deps.activity?.record(pushActivity(messages), sensingActivity(entriesOf(sorted))),
      deps.days?.record(daySensing(sorted.converted, source().now)),
    ]);
    await eraseUsersDeletedMeanwhile(deps, messages);
    const last = batch.messages[batch.messages.length - 1] as KafkaMessage;
    return {
      afterCommit: () =>
        deps.intakeLog.info(
          `Moved ${sorted.converted.length} entries to the timeseries and ${sorted.deadLetters.length} to the error timeseries from ${batch.topic}[${batch.partition}] up to offset ${last.offset}`,
        ),
    };
  };
}
