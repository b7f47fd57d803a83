import { isRecordRefusal } from '../errors/classify.js';
import type { KeyedProducer, KeyedRecord } from './keyed-producer.js';

export interface Refusal {
  /** Position of the refused record in what was passed. */
  index: number;
  error: unknown;
}

/**
 * Sends like KeyedProducer.send, but a record the broker will never take (MESSAGE_TOO_LARGE, an invalid record: see
 * isRecordRefusal) does not fail the others: the records are then sent one at a time and the refused ones are
 * returned with the broker's answer, for the caller to dead-letter. Any other error (an outage, a producer
 * problem) is thrown as it is, so the caller's batch is retried. Records sent before a refusal may be sent twice;
 * the consumers of our topics are idempotent by entry identity.
 */
export async function sendSeparatingRefusals(
  producer: KeyedProducer,
  topic: string,
  records: readonly KeyedRecord[],
): Promise<Refusal[]> {
  if (records.length === 0) return [];
  try {
    await producer.send(topic, records);
    return [];
  } catch (err) {
    if (!isRecordRefusal(err)) throw err;
  }
  const refused: Refusal[] = [];
  for (const [index, record] of records.entries()) {
    try {
      await producer.send(topic, [record]);
    } catch (error) {
      if (!isRecordRefusal(error)) throw error;
      refused.push({ index, error });
    }
  }
  return refused;
}
