import { type DeadLetter, UNDECODABLE_KEY, type UsercacheRecord } from '../../../shared/events/index.js';
import type { StoredEntry } from '../../../shared/timeseries/index.js';
import { prepareEntry, type PrepareRules } from './prepare-entry.js';

/** The user of an undecodable record that has no Kafka key. */
const NIL_USER = '00000000-0000-0000-0000-000000000000';

/** What is kept of a Kafka message that does not decode as a usercache record. */
export interface RawMessage {
  /** The message key (the gateway keys by user id); null when it has none. */
  key: string | null;
  /** The message timestamp, in milliseconds. */
  timestampMs: number;
  /** The message value, base64; null when it has none. */
  base64: string | null;
}

/** One message of a batch as the effect step decoded it: a usercache record, or bytes that are none. */
export type BatchMessage =
  | { offset: number; ok: true; record: UsercacheRecord; replayed: boolean }
  | { offset: number; ok: false; raw: RawMessage; error: string };

/** Why an entry becomes a dead letter. */
export type Failure =
  | { kind: 'undecodable'; error: string }
  /** prepareEntry's reason: not JSON, refused by the conversion rules, too large once converted. */
  | { kind: 'unconvertible'; reason: string }
  /** The timeseries writer's reason: a row too large, or refused by Cassandra for a reason that is no outage. */
  | { kind: 'refused-by-cassandra'; reason: string }
  /** The broker refused the entry's notice (too large, invalid): stored, but the trip builder cannot see it. */
  | { kind: 'refused-by-kafka'; error: string };

/** The reason written in a dead letter: what an operator reads in `itinera errors`. */
export function reasonOf(failure: Failure): string {
  switch (failure.kind) {
    case 'undecodable':
      return `undecodable record: ${failure.error}`;
    case 'unconvertible':
    case 'refused-by-cassandra':
      return failure.reason;
    case 'refused-by-kafka':
      return `Kafka refused the converted entry: ${failure.error}`;
  }
}

/** A converted entry and the record it came from (kept to dead-letter it if storing or publishing is refused). */
export interface Converted {
  entry: StoredEntry;
  /** `data.start_ts` of a label, survey answer or note, for its notice (prepare-entry.ts). */
  startTs: number | null;
  /** The phone's time zone, for the day-by-day record of what it sensed (day-sensing.ts). */
  timeZone: string | null;
  record: UsercacheRecord;
  offset: number;
  /** A replayed dead letter (fix-usercache-processing): once stored and published, its error row is removed. */
  replayed: boolean;
}

/** A batch sorted so far: what is still on its way to the timeseries, and what goes to the error timeseries. */
export interface SortedBatch {
  /** Converted entries no step has refused yet, in batch order. */
  converted: Converted[];
  /** Letters for the error table and topic, in the order their failures were found. */
  deadLetters: DeadLetter[];
}

/** Where the batch was read from, and the time (seconds) its letters are stamped with as failed. */
export interface BatchSource {
  topic: string;
  partition: number;
  now: number;
}

/** An entry a step refused, and why. */
export interface Refusal {
  entry: StoredEntry;
  failure: Failure;
}

function deadLetter(record: UsercacheRecord, offset: number, failure: Failure, source: BatchSource): DeadLetter {
  return {
    user_id: record.user_id,
    key: record.key,
    type: record.type,
    write_ts: record.write_ts,
    reason: reasonOf(failure),
    source_topic: source.topic,
    source_partition: source.partition,
    source_offset: offset,
    failed_ts: source.now,
    metadata_json: record.metadata_json,
    data_json: record.data_json,
  };
}

/** The record a dead letter of undecodable bytes is written as: the bytes kept, base64, for an operator. */
function undecodableRecord(raw: RawMessage): UsercacheRecord {
  return {
    user_id: raw.key ?? NIL_USER,
    key: UNDECODABLE_KEY,
    type: 'unknown',
    write_ts: raw.timestampMs / 1000,
    platform: null,
    received_ts: 0,
    metadata_json: '{}',
    data_json: JSON.stringify({ base64: raw.base64 }),
  };
}

/**
 * The first step of a batch: every message is converted (prepareEntry: parse, rules, size bound) or becomes a dead
 * letter. Nothing here throws or waits; what the batch's effects later refuse is moved over by withRefusals.
 */
export function sortBatch(messages: readonly BatchMessage[], rules: PrepareRules, source: BatchSource): SortedBatch {
  const sorted: SortedBatch = { converted: [], deadLetters: [] };
  for (const message of messages) {
    if (!message.ok) {
      const failure: Failure = { kind: 'undecodable', error: message.error };
      sorted.deadLetters.push(deadLetter(undecodableRecord(message.raw), message.offset, failure, source));
      continue;
    }
    const { record, offset, replayed } = message;
    const prepared = prepareEntry(record, rules);
    if (prepared.ok)
      sorted.converted.push({
        entry: prepared.entry,
        startTs: prepared.startTs,
        timeZone: prepared.timeZone,
        record,
        offset,
        replayed,
      });
    else
      sorted.deadLetters.push(deadLetter(record, offset, { kind: 'unconvertible', reason: prepared.reason }, source));
  }
  return sorted;
}

/** The batch once a step (storing, publishing) has refused `refusals`: those entries become dead letters. */
export function withRefusals(batch: SortedBatch, refusals: readonly Refusal[], source: BatchSource): SortedBatch {
  if (refusals.length === 0) return batch;
  const why = new Map(refusals.map((r) => [r.entry, r.failure]));
  const converted: Converted[] = [];
  const deadLetters = [...batch.deadLetters];
  for (const c of batch.converted) {
    const failure = why.get(c.entry);
    if (failure === undefined) converted.push(c);
    else deadLetters.push(deadLetter(c.record, c.offset, failure, source));
  }
  return { converted, deadLetters };
}

/** Once every step has run: the replayed dead letters now stored and published, whose error rows are removed. */
export function replaysToClear(batch: SortedBatch): UsercacheRecord[] {
  return batch.converted.filter((c) => c.replayed).map((c) => c.record);
}
