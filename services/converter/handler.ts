import type { EachBatchPayload, KafkaMessage, Producer } from 'kafkajs';
import { topicName, type UsercacheEntry, type UsercacheRecord } from '../../shared/events/index.js';
import { sendChunked } from '../../shared/kafka/index.js';
import type { Logger } from '../../shared/logger/index.js';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import type { DeadLetter, ErrorTimeseries, StoredEntry } from '../../shared/timeseries/index.js';
import { convertEntry, type Conversion } from './domain/convert-entry.js';
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

function bsonUuid(uuid: string) {
  return { $uuid: uuid.replace(/-/g, '') };
}

async function decode(codec: AvroCodec, message: KafkaMessage): Promise<UsercacheRecord | string> {
  try {
    return await codec.decode<UsercacheRecord>(message.value as Buffer);
  } catch (err) {
    return `undecodable record: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * The rules never throw by contract, but a bug in them must not block a partition forever (kafkajs would retry
 * the batch without end): an entry whose conversion throws goes to the error timeseries like any bad entry, and
 * a fixed version of the rules replays it (fix-usercache-processing).
 */
function convertSafely(convert: (entry: UsercacheEntry) => Conversion, entry: UsercacheEntry): Conversion {
  try {
    return convert(entry);
  } catch (err) {
    return { ok: false, reason: `conversion threw: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * Converts one batch of one partition. Order of effects, which is what makes a crash at any instant safe:
 * 1. every convertible entry is upserted into the timeseries (by identity: a replay rewrites the same rows);
 * 2. every failure is written to the error table and the error-timeseries topic;
 * 3. converted entries are published for the trip builder;
 * 4. only then is the batch's last offset resolved and committed.
 * A crash before 4 redelivers the batch into idempotent writes. A retriable error (Cassandra or Kafka away) is
 * rethrown so kafkajs retries the batch; a bad entry never throws, so it cannot block its partition.
 */
export function createBatchHandler(deps: ConverterDeps) {
  const errorTopic = topicName(deps.topicPrefix, 'errorTimeseries');
  const timeseriesTopic = topicName(deps.topicPrefix, 'timeseries');
  const convert = deps.convert ?? convertEntry;
  return async ({
    batch,
    resolveOffset,
    heartbeat,
    commitOffsetsIfNecessary,
    isRunning,
    isStale,
  }: EachBatchPayload) => {
    if (batch.messages.length === 0 || !isRunning() || isStale()) return;
    const converted: StoredEntry[] = [];
    const letters: DeadLetter[] = [];
    const replayedOk: UsercacheRecord[] = [];

    for (const message of batch.messages) {
      const record = await decode(deps.codec, message);
      if (typeof record === 'string') {
        letters.push({
          user_id: message.key?.toString() ?? '00000000-0000-0000-0000-000000000000',
          key: '(undecodable)',
          type: 'unknown',
          write_ts: Number(message.timestamp) / 1000,
          reason: record,
          source_topic: batch.topic,
          source_partition: batch.partition,
          source_offset: Number(message.offset),
          failed_ts: Date.now() / 1000,
          metadata_json: '{}',
          data_json: JSON.stringify({ base64: message.value?.toString('base64') ?? null }),
        });
        continue;
      }
      const metadata = JSON.parse(record.metadata_json) as Record<string, unknown>;
      const data = JSON.parse(record.data_json) as Record<string, unknown>;
      const result = convertSafely(convert, {
        key: record.key,
        type: record.type,
        writeTs: record.write_ts,
        platform: record.platform,
        metadata,
        data,
      });
      if (!result.ok) {
        letters.push({
          user_id: record.user_id,
          key: record.key,
          type: record.type,
          write_ts: record.write_ts,
          reason: result.reason,
          source_topic: batch.topic,
          source_partition: batch.partition,
          source_offset: Number(message.offset),
          failed_ts: Date.now() / 1000,
          metadata_json: record.metadata_json,
          data_json: record.data_json,
        });
        continue;
      }
      const e = result.entry;
      const oid = entryObjectId(record.user_id, e.type, e.key, e.writeTs);
      converted.push({
        userId: record.user_id,
        key: e.key,
        type: e.type,
        writeTs: e.writeTs,
        dataTs: e.dataTs,
        oid,
        entryJson: JSON.stringify({
          _id: { $oid: oid },
          user_id: bsonUuid(record.user_id),
          metadata: e.metadata,
          data: e.data,
        }),
      });
      if (message.headers?.[REPLAY_HEADER]) replayedOk.push(record);
    }

    await deps.timeseries.write(converted);
    await heartbeat();
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
      await deps.errors.insert(letter);
    }
    if (letters.length > 0) {
      const messages = await Promise.all(
        letters.map(async (l) => ({ key: l.user_id, value: await deps.codec.encode(valueSubject(errorTopic), l) })),
      );
      await sendChunked(deps.producer, errorTopic, messages);
    }
    for (const r of replayedOk) await deps.errors.remove(r.user_id, r.key, r.write_ts, r.type);
    if (converted.length > 0) {
      const encode = await deps.codec.encoderFor(valueSubject(timeseriesTopic));
      await sendChunked(
        deps.producer,
        timeseriesTopic,
        converted.map((c) => ({
          key: c.userId,
          value: encode({
            user_id: c.userId,
            key: c.key,
            type: c.type,
            write_ts: c.writeTs,
            data_ts: c.dataTs,
            entry_json: c.entryJson,
          }),
        })),
      );
    }
    const last = batch.messages[batch.messages.length - 1] as KafkaMessage;
    resolveOffset(last.offset);
    await commitOffsetsIfNecessary();
    deps.intakeLog.info(
      `Moved ${converted.length} entries to the timeseries and ${letters.length} to the error timeseries from ${batch.topic}[${batch.partition}] up to offset ${last.offset}`,
    );
    deps.onConverted?.(converted.length, letters.length);
  };
}
