import type { Producer, ProducerRecord, RecordMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { safeIdempotentProducer } from './safe-idempotent-producer.js';

/**
 * Stand-ins for kafkajs producers whose sends settle when the test says so; each records what happened to it. The
 * real broker's side is proven in idempotent-producer.int.test.ts.
 */
function producers() {
  const made: {
    id: number;
    started: string[];
    settle: Map<string, (outcome: RecordMetadata[] | Error) => void>;
    connected: boolean;
    disconnects: number;
    listeners: Map<string, (e: unknown) => void>;
  }[] = [];
  const make = (): Producer => {
    const state = {
      id: made.length,
      started: [] as string[],
      settle: new Map<string, (outcome: RecordMetadata[] | Error) => void>(),
      connected: false,
      disconnects: 0,
      listeners: new Map<string, (e: unknown) => void>(),
    };
    made.push(state);
    const fake = {
      send: (record: ProducerRecord) =>
        new Promise<RecordMetadata[]>((resolve, reject) => {
          const name = String(record.messages[0]!.value);
          state.started.push(name);
          state.settle.set(name, (o) => (o instanceof Error ? reject(o) : resolve(o)));
        }),
      connect: async () => void (state.connected = true),
      disconnect: async () => {
        state.connected = false;
        state.disconnects += 1;
        state.listeners.get('producer.disconnect')?.({});
      },
      on: (event: string, listener: (e: unknown) => void) => {
        state.listeners.set(event, listener);
        return () => state.listeners.delete(event);
      },
      events: { DISCONNECT: 'producer.disconnect' },
    };
    return fake as unknown as Producer;
  };
  return { made, make };
}

const record = (name: string): ProducerRecord => ({ topic: 't', messages: [{ value: name }] });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('safeIdempotentProducer', () => {
  it('When two sends are made at once, then the second starts only once the first has settled', async () => {
    const { made, make } = producers();
    const producer = safeIdempotentProducer(make);
    await producer.connect();
    const first = producer.send(record('a'));
    const second = producer.send(record('b'));
    await tick();
    expect(made[0]!.started).toEqual(['a']);
    made[0]!.settle.get('a')!([]);
    await first;
    await tick();
    expect(made[0]!.started).toEqual(['a', 'b']);
    made[0]!.settle.get('b')!([]);
    await expect(second).resolves.toEqual([]);
    expect(made).toHaveLength(1);
  });

  it('When a send fails, then the next send goes through a fresh, connected producer and the failed one is disconnected', async () => {
    const { made, make } = producers();
    const producer = safeIdempotentProducer(make);
    await producer.connect();
    const first = producer.send(record('a'));
    const second = producer.send(record('b'));
    await tick();
    made[0]!.settle.get('a')!(new Error('one partition refused'));
    await expect(first).rejects.toThrow('one partition refused');
    await tick();
    expect(made).toHaveLength(2);
    expect(made[0]!.disconnects).toBe(1);
    expect(made[1]!.connected).toBe(true);
    expect(made[1]!.started).toEqual(['b']);
    made[1]!.settle.get('b')!([]);
    await expect(second).resolves.toEqual([]);
  });

  it("When the producer is renewed, then its owner's listeners move to the new one and hear nothing of the old one's disconnection", async () => {
    const { made, make } = producers();
    const producer = safeIdempotentProducer(make);
    const heard: number[] = [];
    producer.on(producer.events.DISCONNECT, () => heard.push(1));
    await producer.connect();
    const failing = producer.send(record('a'));
    await tick();
    made[0]!.settle.get('a')!(new Error('gone'));
    await expect(failing).rejects.toThrow('gone');
    const next = producer.send(record('b'));
    await tick();
    expect(heard).toEqual([]);
    made[1]!.settle.get('b')!([]);
    await next;
    await producer.disconnect();
    expect(heard).toEqual([1]);
  });

  it('When the owner has disconnected it, then a failed send renews nothing and the next send goes to the same producer', async () => {
    const { made, make } = producers();
    const producer = safeIdempotentProducer(make);
    await producer.connect();
    await producer.disconnect();
    const failing = producer.send(record('a'));
    await tick();
    made[0]!.settle.get('a')!(new Error('the producer is disconnected'));
    await expect(failing).rejects.toThrow();
    void producer.send(record('b'));
    await tick();
    expect(made).toHaveLength(1);
    expect(made[0]!.started).toEqual(['a', 'b']);
  });

  it('When a listener is removed twice, then the other listeners stay', async () => {
    const { made, make } = producers();
    const producer = safeIdempotentProducer(make);
    const heard: string[] = [];
    const remove = producer.on(producer.events.DISCONNECT, () => heard.push('first'));
    remove();
    remove();
    producer.on(producer.events.DISCONNECT, () => heard.push('second'));
    await producer.connect();
    await producer.disconnect();
    expect(heard).toEqual(['second']);
    expect(made).toHaveLength(1);
  });
});
