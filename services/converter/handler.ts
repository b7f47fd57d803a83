import type { EachBatchPayload, KafkaMessage, Producer } from 'kafkajs';
import { isOutage } from '../../shared/errors/classify.js';
import { topicName, type UsercacheEntry, type UsercacheRecord } from '../../shared/events/index.js';
import { sendSeparatingRefusals } from '../../shared/kafka/index.js';
import type { Logger } from '../../shared/logger/index.js';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import {
  storeDeadLetter,
  type DeadLetter,
  type ErrorTimeseries,
  type StoredEntry,
} from '../../shared/timeseries/index.js';
import { convertEntry, type Conversion } from './domain/convert-entry.js';
import { prepareEntry } from './domain/prepare-entry.js';
import { entryObjectId, type TimeseriesWriter } from './store/cassandra-timeseries-writer.js';

/** Header set by fix-usercache-processing on replayed dead letters: a success must clear the error row. */
export const REPLAY_HEADER = 'itinera-replay';

export interface ConverterDeps {
  codec: AvroCodec;
  timeseries: TimeseriesWriter;
  errors: ErrorTimeseries;
  producer: Producer;
  topicPrefix: string;
  logger: Logger;
  /** The spec's pipeline log (intake_<n>.log.gz). */
  intakeLog: Logger;
  onConverted?: (converted: number, failed: number) => void;
  /** The conversion rules; a new version of them is how a conversion bug gets fixed. @defaultValue convertEntry */
  convert?: (entry: UsercacheEntry) => Conversion;
}

/** A converted entry and the record it came from (kept to dead-letter it if storing or publishing is refused). */
interface Converted {
  stored: StoredEntry;
  record: UsercacheRecord;
  offset: number;
  replayed: boolean;
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A record that is not ours to read (wrong schema, corrupt bytes) is a dead letter; a registry outage is not. */
async function decode(codec: AvroCodec, message: KafkaMessage): Promise<UsercacheRecord | string> {
  try {
    return await codec.decode<UsercacheRecord>(message.value as Buffer);
  } catch (err) {
    if (isOutage(err)) throw err;
    return `undecodable record: ${describe(err)}`;
  }
}

/** Publishes stored entries for the trip builder; returns those Kafka refused (see sendSeparatingRefusals). */
async function publishConverted(deps: ConverterDeps, topic: string, entries: readonly StoredEntry[]) {
  if (entries.length === 0) return [];
  const encode = await deps.codec.encoderFor(valueSubject(topic));
  return sendSeparatingRefusals(
    deps.producer,
    topic,
    entries.map((s) => ({
      key: s.userId,
      value: encode({
        user_id: s.userId,
        key: s.key,
        type: s.type,
        write_ts: s.writeTs,
        data_ts: s.dataTs,
        entry_json: s.entryJson,
      }),
    })),
  );
}

/**
 * Converts one batch of one partition. Order of effects, which is what makes a crash at any instant safe:
 * 1. every convertible entry is upserted into the timeseries (by identity: a replay rewrites the same rows);
 * 2. converted entries are published for the trip builder;
 * 3. every failure is written to the error table and the error-timeseries topic;
 * 4. only then is the batch's last offset resolved and committed.
 * A crash before 4 redelivers the batch into idempotent writes. An outage (Cassandra or Kafka away, see isOutage)
 * is rethrown so kafkajs retries the batch. Anything else that stops one entry (it does not parse or convert, it
 * grows too large, Cassandra or Kafka refuse it) makes that entry a dead letter, so it cannot block its partition.
 */
export function createBatchHandler(deps: ConverterDeps) {
  const errorTopic = topicName(deps.topicPrefix, 'errorTimeseries');
  const timeseriesTopic = topicName(deps.topicPrefix, 'timeseries');
  const rules = { convert: deps.convert ?? convertEntry, objectId: entryObjectId };
  return async ({
    batch,
    resolveOffset,
    heartbeat,
    commitOffsetsIfNecessary,
    isRunning,
    isStale,
  }: EachBatchPayload) => {
    if (batch.messages.length === 0 || !isRunning() || isStale()) return;
    const converted: Converted[] = [];
    const letters: DeadLetter[] = [];
    const letterOf = (record: UsercacheRecord, offset: number, reason: string): DeadLetter => ({
      user_id: record.user_id,
      key: record.key,
      type: record.type,
      write_ts: record.write_ts,
      reason,
      source_topic: batch.topic,
      source_partition: batch.partition,
      source_offset: offset,
      failed_ts: Date.now() / 1000,
      metadata_json: record.metadata_json,
      data_json: record.data_json,
    });

    for (const message of batch.messages) {
      const offset = Number(message.offset);
      const record = await decode(deps.codec, message);
      if (typeof record === 'string') {
        const raw: UsercacheRecord = {
          user_id: message.key?.toString() ?? '00000000-0000-0000-0000-000000000000',
          key: '(undecodable)',
          type: 'unknown',
          write_ts: Number(message.timestamp) / 1000,
          platform: null,
          received_ts: 0,
          metadata_json: '{}',
          data_json: JSON.stringify({ base64: message.value?.toString('base64') ?? null }),
        };
        letters.push(letterOf(raw, offset, record));
        continue;
      }
      const prepared = prepareEntry(record, rules);
      if (!prepared.ok) letters.push(letterOf(record, offset, prepared.reason));
      else converted.push({ stored: prepared.entry, record, offset, replayed: !!message.headers?.[REPLAY_HEADER] });
    }

    const refusedByCassandra = await deps.timeseries.write(converted.map((c) => c.stored));
    const refusedEntries = new Map(refusedByCassandra.map((r) => [r.entry, r.reason]));
    for (const c of converted) {
      const reason = refusedEntries.get(c.stored);
      if (reason !== undefined) letters.push(letterOf(c.record, c.offset, reason));
    }
    const stored = converted.filter((c) => !refusedEntries.has(c.stored));
    await heartbeat();

    const refusedByKafka = await publishConverted(
      deps,
      timeseriesTopic,
      stored.map((c) => c.stored),
    );
    // Stored but not published: the trip builder would never see it. The dead letter's replay stores it again
    // (by identity) and publishes it.
    for (const { index, error } of refusedByKafka) {
      const c = stored[index] as Converted;
      letters.push(letterOf(c.record, c.offset, `Kafka refused the converted entry: ${describe(error)}`));
    }
    const published = stored.filter((_, i) => !refusedByKafka.some((r) => r.index === i));

    for (const [i, letter] of letters.entries()) {
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
      letters[i] = await storeDeadLetter({ errors: deps.errors, logger: deps.logger }, letter);
    }
    if (letters.length > 0) {
      const encodeLetter = await deps.codec.encoderFor(valueSubject(errorTopic));
      const refused = await sendSeparatingRefusals(
        deps.producer,
        errorTopic,
        letters.map((l) => ({ key: l.user_id, value: encodeLetter(l) })),
      );
      // The error table holds every dead letter; the topic is a feed of them, so a refused one is only logged.
      for (const { index, error } of refused)
        deps.logger.error('Error-timeseries topic refused a dead letter; it is in the error table', {
          key: letters[index]?.key,
          offset: letters[index]?.source_offset,
          error: describe(error),
        });
    }
    for (const { record: r } of published.filter((c) => c.replayed))
      await deps.errors.remove(r.user_id, r.key, r.write_ts, r.type);
    const last = batch.messages[batch.messages.length - 1] as KafkaMessage;
    resolveOffset(last.offset);
    await commitOffsetsIfNecessary();
    deps.intakeLog.info(
      `Moved ${published.length} entries to the timeseries and ${letters.length} to the error timeseries from ${batch.topic}[${batch.partition}] up to offset ${last.offset}`,
    );
    deps.onConverted?.(published.length, letters.length);
  };
}
