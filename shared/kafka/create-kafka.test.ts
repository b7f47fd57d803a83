import type { Producer, ProducerRecord, RecordMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { oneSendAtATime } from './create-kafka.js';

/** A producer whose sends settle when the test says so, recording when each started. */
function heldProducer() {
  const started: string[] = [];
  const release = new Map<string, (outcome: RecordMetadata[] | Error) => void>();
  const send = (record: ProducerRecord) =>
    new Promise<RecordMetadata[]>((resolve, reject) => {
      const name = String(record.messages[0]!.value);
      started.push(name);
      release.set(name, (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)));
    });
  const producer = { send, sendBatch: () => Promise.resolve([]), connect: () => Promise.resolve() };
  return { producer: producer as unknown as Producer, started, release };
}

const record = (name: string): ProducerRecord => ({ topic: 't', messages: [{ value: name }] });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('oneSendAtATime', () => {
  it('When two sends are made at once, then the second starts only once the first has settled, failed or not', async () => {
    const { producer, started, release } = heldProducer();
    const queued = oneSendAtATime(producer);
    const first = queued.send(record('a'));
    const second = queued.send(record('b'));
    await tick();
    expect(started).toEqual(['a']);
    release.get('a')!(new Error('broker gone'));
    await expect(first).rejects.toThrow('broker gone');
    await tick();
    expect(started).toEqual(['a', 'b']);
    release.get('b')!([]);
    await expect(second).resolves.toEqual([]);
  });

  it('When the producer is wrapped, then its other methods stay as they were', () => {
    const { producer } = heldProducer();
    expect(oneSendAtATime(producer).connect).toBe(producer.connect);
  });
});
