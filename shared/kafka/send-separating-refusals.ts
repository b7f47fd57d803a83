import type { Message, Producer } from 'kafkajs';
import { isRecordRefusal } from '../errors/classify.js';
import { sendChunked } from './send-chunked.js';

export interface Refusal {
  /** Position of the refused message in what was passed. */
  index: number;
  error: unknown;
}

/**
 * Sends like sendChunked, but a message the broker will never take (MESSAGE_TOO_LARGE, an invalid record: see
 * isRecordRefusal) does not fail the others: the messages are then sent one at a time and the refused ones are
 * returned with the broker's answer, for the caller to dead-letter. Any other error (an outage, a producer
 * problem) is thrown as it is, so the caller's batch is retried. Messages sent before a refusal may be sent
 * twice; the consumers of our topics are idempotent by entry identity.
 */
export async function sendSeparatingRefusals(
  producer: Producer,
  topic: string,
  messages: readonly Message[],
): Promise<Refusal[]> {
  if (messages.length === 0) return [];
  try {
    await sendChunked(producer, topic, messages);
    return [];
  } catch (err) {
    if (!isRecordRefusal(err)) throw err;
  }
  const refused: Refusal[] = [];
  for (const [index, message] of messages.entries()) {
    try {
      await producer.send({ topic, acks: -1, messages: [message] });
    } catch (error) {
      if (!isRecordRefusal(error)) throw error;
      refused.push({ index, error });
    }
  }
  return refused;
}
