import type { EachBatchPayload, Kafka } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import type { Logger } from '../logger/index.js';
import type { KeyedProducer } from './keyed-producer.js';
import { runWorker, workerEachBatch, type BatchHandler } from './run-worker.js';

/** An eachBatch payload as kafkajs' runner builds it, its calls recorded in `calls`. */
function payload(offsets: string[], state: { running?: boolean; stale?: boolean } = {}) {
  const calls: string[] = [];
  const p = {
    batch: { topic: 'in', partition: 0, messages: offsets.map((offset) => ({ offset })) },
    resolveOffset: (offset: string) => void calls.push(`resolve ${offset}`),
    commitOffsetsIfNecessary: async () => void calls.push('commit'),
    heartbeat: async () => void calls.push('heartbeat'),
    isRunning: () => state.running ?? true,
    isStale: () => state.stale ?? false,
  } as unknown as EachBatchPayload;
  return { payload: p, calls };
}

/** Tries again in place without waiting, so the tests stay fast. */
const QUICK = { retries: 2, firstDelayMs: 1, maxDelayMs: 1 };

describe('workerEachBatch', () => {
  it('When the handler resolves, then the last offset is resolved and committed, then its afterCommit runs', async () => {
    const { payload: p, calls } = payload(['7', '8', '9']);
    const handle: BatchHandler = async ({ batch, heartbeat }) => {
      calls.push(`handle ${batch.messages.length}`);
      await heartbeat();
      return { afterCommit: () => calls.push('after commit') };
    };
    await workerEachBatch(handle)(p);
    expect(calls).toEqual(['handle 3', 'heartbeat', 'resolve 9', 'commit', 'after commit']);
  });

  it('When the handler runs long, then the batch heartbeats meanwhile, and stops once it is done', async () => {
    const { payload: p, calls } = payload(['1']);
    let finish!: () => void;
    const running = workerEachBatch(() => new Promise<void>((r) => (finish = r)), { heartbeatEveryMs: 5 })(p);
    await new Promise((r) => setTimeout(r, 40));
    finish();
    await running;
    const beats = calls.filter((c) => c === 'heartbeat').length;
    expect(beats).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 30));
    expect(calls.filter((c) => c === 'heartbeat').length).toBe(beats);
    expect(calls.slice(-2)).toEqual(['resolve 1', 'commit']);
  });

  it('When the handler returns nothing, then the batch is still committed', async () => {
    const { payload: p, calls } = payload(['1']);
    await workerEachBatch(async () => undefined)(p);
    expect(calls).toEqual(['resolve 1', 'commit']);
  });

  it('When the handler throws once, then it is tried again in place and the batch is committed once', async () => {
    const { payload: p, calls } = payload(['4', '5']);
    let attempts = 0;
    const retried: unknown[] = [];
    const handle: BatchHandler = async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('Cassandra away');
    };
    await workerEachBatch(handle, { retry: QUICK, onRetry: (f) => retried.push(f) })(p);
    expect(attempts).toBe(2);
    expect(retried).toEqual([{ topic: 'in', partition: 0, attempt: 1, error: new Error('Cassandra away') }]);
    expect(calls.filter((c) => c !== 'heartbeat')).toEqual(['resolve 5', 'commit']);
  });

  it('When the handler keeps throwing, then after its tries nothing is resolved or committed and kafkajs gets the error (it retries the batch)', async () => {
    const { payload: p, calls } = payload(['1']);
    const failure = new Error('Cassandra away');
    const handle = vi.fn<BatchHandler>(async () => Promise.reject(failure));
    await expect(workerEachBatch(handle, { retry: QUICK })(p)).rejects.toBe(failure);
    expect(handle).toHaveBeenCalledTimes(QUICK.retries + 1);
    expect(calls.filter((c) => c !== 'heartbeat')).toEqual([]);
  });

  it('When the handler fails because a heartbeat failed (a rebalance), then it is not tried again', async () => {
    const { payload: p, calls } = payload(['1']);
    const rebalancing = new Error('The group is rebalancing, so a rejoin is needed');
    (p as { heartbeat: () => Promise<void> }).heartbeat = async () => Promise.reject(rebalancing);
    const handle = vi.fn<BatchHandler>(async ({ heartbeat }) => heartbeat());
    await expect(workerEachBatch(handle, { retry: QUICK })(p)).rejects.toBe(rebalancing);
    expect(handle).toHaveBeenCalledTimes(1);
    expect(calls).toEqual([]);
  });

  it.each([
    ['the consumer stops', { running: false }],
    ['a rebalance took the partition away', { stale: true }],
  ])('When the handler throws and then %s, then it is not tried again', async (_what, after) => {
    const state: { running?: boolean; stale?: boolean } = {};
    const { payload: p, calls } = payload(['1'], state);
    const failure = new Error('Cassandra away');
    const handle = vi.fn<BatchHandler>(async () => {
      Object.assign(state, after);
      throw failure;
    });
    await expect(workerEachBatch(handle, { retry: QUICK })(p)).rejects.toBe(failure);
    expect(handle).toHaveBeenCalledTimes(1);
    expect(calls).toEqual([]);
  });

  it.each([
    ['empty', [], {}],
    ['arrives while the consumer stops', ['1'], { running: false }],
    ['is stale after a rebalance', ['1'], { stale: true }],
  ])('When the batch is %s, then the handler is not called and nothing is committed', async (_what, offsets, state) => {
    const { payload: p, calls } = payload(offsets, state);
    const handle = vi.fn<BatchHandler>();
    await workerEachBatch(handle)(p);
    expect(handle).not.toHaveBeenCalled();
    expect(calls).toEqual([]);
  });
});

/** A worker's clients whose producer and consumer record what is done to them; `crash` plays the consumer's CRASH. */
function fakeClients() {
  const calls: string[] = [];
  let crashListener: ((e: { payload: { error: Error; restart: boolean } }) => void) | undefined;
  let run: Record<string, unknown> = {};
  const producer = {
    send: async () => [],
    close: async () => void calls.push('producer close'),
  } satisfies KeyedProducer;
  const kafka = {
    consumer: (config: { groupId: string }) => {
      calls.push(`consumer ${config.groupId}`);
      return {
        events: { CRASH: 'consumer.crash' },
        on: (_event: string, listener: typeof crashListener) => (crashListener = listener),
        connect: async () => void calls.push('consumer connect'),
        subscribe: async (s: { topic: string; fromBeginning: boolean }) =>
          void calls.push(`subscribe ${s.topic} ${s.fromBeginning}`),
        run: async (options: Record<string, unknown>) => void (run = options),
        disconnect: async () => void calls.push('consumer disconnect'),
      };
    },
  } as unknown as Kafka;
  const crash = (error: Error, restart: boolean) => crashListener?.({ payload: { error, restart } });
  return { clients: { kafka, producer }, calls, crash, run: () => run };
}

describe('runWorker', () => {
  it('When started and stopped, then it joins the group on its topic with its producer, and leaves it before closing the producer', async () => {
    const k = fakeClients();
    const producers: unknown[] = [];
    const worker = await runWorker({
      clients: k.clients,
      groupId: 'g',
      topic: 'in',
      logger: { error: () => undefined } as unknown as Logger,
      handler: (producer) => {
        producers.push(producer);
        return async () => undefined;
      },
      onStopped: () => k.calls.push('stopped'),
    });
    expect(producers).toEqual([k.clients.producer]);
    expect(k.run()).toMatchObject({ autoCommit: true, eachBatchAutoResolve: false, partitionsConsumedConcurrently: 2 });
    await worker.stop();
    expect(k.calls).toEqual([
      'consumer g',
      'consumer connect',
      'subscribe in true',
      'consumer disconnect',
      'producer close',
      'stopped',
    ]);
  });

  it('When the consumer crashes for good, then it is logged and onFatal is called; a crash kafkajs restarts from is not', async () => {
    const k = fakeClients();
    const fatal: Error[] = [];
    const logged: unknown[] = [];
    await runWorker({
      clients: k.clients,
      groupId: 'g',
      topic: 'in',
      logger: { error: (...args: unknown[]) => logged.push(args) } as unknown as Logger,
      handler: () => async () => undefined,
      onFatal: (e) => fatal.push(e),
    });
    k.crash(new Error('retriable'), true);
    expect(fatal).toEqual([]);
    const gone = new Error('not retriable');
    k.crash(gone, false);
    expect(fatal).toEqual([gone]);
    expect(logged).toEqual([['Consumer stopped for good', { group: 'g', error: 'not retriable' }]]);
  });
});
