import type { Message, Producer, ProducerRecord } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { sendChunked } from './send-chunked.js';

/** A producer that records each request's messages and answers at once. */
function recordingProducer(): { producer: Producer; requests: Message[][] } {
  const requests: Message[][] = [];
  const producer = {
    send: async (record: ProducerRecord) => {
      requests.push(record.messages);
      return [];
    },
  } as unknown as Producer;
  return { producer, requests };
}

const messages = (count: number, bytes: number): Message[] =>
  Array.from({ length: count }, (_, i) => ({ key: 'user', value: Buffer.alloc(bytes, i % 256) }));

describe('sendChunked', () => {
  it('When 2,500 small messages are sent, then they go in order in requests of at most 1,000 messages', async () => {
    const { producer, requests } = recordingProducer();
    const sent = messages(2500, 100);

    await sendChunked(producer, 'topic', sent);

    expect(requests.map((r) => r.length)).toEqual([1000, 1000, 500]);
    expect(requests.flat()).toEqual(sent);
  });

  it('When messages are large, then a request holds at most 1 MiB of values, and a larger message goes alone', async () => {
    const { producer, requests } = recordingProducer();

    await sendChunked(producer, 'topic', [...messages(5, 300 * 1024), ...messages(1, 2 * 1024 * 1024)]);

    expect(requests.map((r) => r.length)).toEqual([3, 2, 1]);
  });
});
