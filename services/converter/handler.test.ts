import { ProtocolError } from '@platformatic/kafka';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../../shared/errors/index.js';
import type { UsercacheRecord } from '../../shared/events/index.js';
import type { BatchDone, KeyedProducer, WorkerBatch } from '../../shared/kafka/index.js';
import type { Logger } from '../../shared/logger/index.js';
import type { AvroCodec } from '../../shared/schema-registry/index.js';
import type { DeadLetter, ErrorTimeseries, StoredEntry } from '../../shared/timeseries/index.js';
import { createBatchHandler, REPLAY_HEADER, type ConverterDeps } from './handler.js';
import type { RejectedEntry } from './stores.js';

const USER = '6f1c1d2e-0000-4000-8000-000000000001';

function record(key: string, writeTs: number, data: Record<string, unknown> = { ts: writeTs }): UsercacheRecord {
  return {
    user_id: USER,
    key,
    type: 'sensor-data',
    write_ts: writeTs,
    platform: 'android',
    received_ts: writeTs,
    metadata_json: JSON.stringify({ key, write_ts: writeTs, type: 'sensor-data' }),
    data_json: JSON.stringify(data),
  };
}

/** The broker's answer to a record over its size limit, as the producer's client reports it. */
const tooLarge = () => new ProtocolError('MESSAGE_TOO_LARGE');

/**
 * A converter's dependencies as plain fakes: the codec is JSON (bytes `not json` do not decode, `outage` is a
 * registry outage), the writer refuses entries written at `refuseStoreAt`, the broker converted entries
 * written at `refusePublishAt`; everything done is recorded.
 */
function fakes(options: { refuseStoreAt?: number; refusePublishAt?: number; storeOutage?: boolean } = {}) {
  const stored: StoredEntry[] = [];
  const published: { topic: string; value: Record<string, unknown> }[] = [];
  const inserted: DeadLetter[] = [];
  const removed: unknown[][] = [];
  const intake: string[] = [];
  const codec = {
    async decode(buffer: Buffer | null) {
      const text = buffer?.toString() ?? '';
      if (text === 'outage') throw new DependencyUnavailableError('registry did not answer');
      return JSON.parse(text);
    },
    async encoderFor() {
      return (value: unknown) => Buffer.from(JSON.stringify(value));
    },
  } as unknown as AvroCodec;
  const producer: KeyedProducer = {
    async send(topic, records) {
      const values = [...records].map((r) => JSON.parse(String(r.value)) as Record<string, unknown>);
      if (topic === 't.timeseries' && values.some((v) => v['write_ts'] === options.refusePublishAt)) throw tooLarge();
      published.push(...values.map((value) => ({ topic, value })));
      return [];
    },
    close: async () => undefined,
  };
  const errors = {
    insert: async (l: DeadLetter) => void inserted.push(l),
    remove: async (...args: unknown[]) => void removed.push(args),
  } as unknown as ErrorTimeseries;
  const log = { info: (m: string) => intake.push(m), warn: (m: string) => intake.push(m) } as unknown as Logger;
  const deps: ConverterDeps = {
    codec,
    producer,
    errors,
    timeseries: {
      async write(entries): Promise<RejectedEntry[]> {
        if (options.storeOutage) throw new DependencyUnavailableError('Cassandra did not answer');
        stored.push(...entries);
        return entries
          .filter((e) => e.writeTs === options.refuseStoreAt)
          .map((entry) => ({ entry, reason: 'Cassandra refused the entry: too big' }));
      },
    },
    topicPrefix: 't.',
    logger: { warn: () => undefined, error: () => undefined } as unknown as Logger,
    intakeLog: log,
    // Rules that refuse an entry whose data says so, and keep every other as it is.
    convert: (e) =>
      e.data['refuse']
        ? { ok: false, reason: 'refused by the rules' }
        : { ok: true, entry: { ...e, dataTs: e.writeTs } },
  };
  return { deps, stored, published, inserted, removed, intake };
}

function batchOf(values: (UsercacheRecord | string)[], replayedAt?: number): WorkerBatch {
  const messages = values.map(
    (v, i) =>
      ({
        offset: String(100 + i),
        key: Buffer.from(USER),
        timestamp: '1700000000000',
        value: Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)),
        headers: i === replayedAt ? { [REPLAY_HEADER]: Buffer.from('1') } : {},
      }) as unknown as KafkaMessage,
  );
  let beats = 0;
  return {
    batch: { topic: 't.usercache', partition: 1, messages },
    heartbeat: async () => void beats++,
  } as unknown as WorkerBatch;
}

describe('converter batch handler', () => {
  it('When a batch holds good, unconvertible, undecodable, store-refused and publish-refused entries, then each goes where it belongs', async () => {
    const f = fakes({ refuseStoreAt: 3, refusePublishAt: 4 });
    const done = await createBatchHandler(f.deps)(
      batchOf(
        [
          record('background/battery', 1, { battery_level_pct: 50, ts: 1 }),
          record('background/battery', 2, { refuse: true }),
          'not json',
          record('background/battery', 3, { battery_level_pct: 51, ts: 3 }),
          record('background/battery', 4, { battery_level_pct: 52, ts: 4 }),
          record('background/battery', 5, { battery_level_pct: 53, ts: 5 }),
        ],
        5,
      ),
    );
    expect(f.stored.map((e) => e.writeTs)).toEqual([1, 3, 4, 5]);
    expect(f.published.filter((p) => p.topic === 't.timeseries').map((p) => p.value['write_ts'])).toEqual([1, 5]);
    const letters = f.inserted.map((l) => [l.source_offset, l.key, l.reason.split(':')[0]]);
    expect(letters).toEqual([
      [101, 'background/battery', 'refused by the rules'],
      [102, '(undecodable)', 'undecodable record'],
      [103, 'background/battery', 'Cassandra refused the entry'],
      [104, 'background/battery', 'Kafka refused the converted entry'],
    ]);
    expect(f.published.filter((p) => p.topic === 't.error-timeseries').map((p) => p.value['source_offset'])).toEqual([
      101, 102, 103, 104,
    ]);
    // The replayed entry was stored and published: its error row goes.
    expect(f.removed).toEqual([[USER, 'background/battery', 5, 'sensor-data']]);
    // What moved is logged once the offset is committed, not before.
    expect(f.intake.some((m) => m.startsWith('Moved'))).toBe(false);
    (done as BatchDone).afterCommit();
    expect(f.intake.at(-1)).toBe(
      'Moved 2 entries to the timeseries and 4 to the error timeseries from t.usercache[1] up to offset 105',
    );
  });

  it('When every entry converts, then nothing is dead-lettered and no error row is touched', async () => {
    const f = fakes();
    await createBatchHandler(f.deps)(batchOf([record('background/battery', 1, { battery_level_pct: 1, ts: 1 })]));
    expect(f.published.map((p) => p.topic)).toEqual(['t.timeseries']);
    expect(f.inserted).toEqual([]);
    expect(f.removed).toEqual([]);
  });

  it('When a label and a location convert, then the trip builder is sent notices: the label’s with its start', async () => {
    const f = fakes();
    const label = record('manual/mode_confirm', 7, { start_ts: 3, end_ts: 5, label: 'walk' });
    const fix = record('background/battery', 8, { battery_level_pct: 50, ts: 8 });
    await createBatchHandler(f.deps)(batchOf([label, fix]));
    const [labelNotice, fixNotice] = f.published.map((p) => p.value);
    expect(labelNotice).toMatchObject({ key: 'manual/mode_confirm', write_ts: 7, start_ts: 3 });
    expect(JSON.parse(String(labelNotice?.['entry_json']))).toMatchObject({ data: { start_ts: 3, label: 'walk' } });
    expect(fixNotice).toMatchObject({
      key: 'background/battery',
      write_ts: 8,
      data_ts: 8,
      start_ts: null,
      entry_json: null,
    });
  });

  it('When the registry is away while decoding, then the batch fails before any effect (kafkajs retries it)', async () => {
    const f = fakes();
    const handle = createBatchHandler(f.deps);
    await expect(handle(batchOf([record('background/battery', 1), 'outage']))).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
    expect([f.stored, f.published, f.inserted]).toEqual([[], [], []]);
  });

  it('When Cassandra is away, then the batch fails and nothing is published or dead-lettered', async () => {
    const f = fakes({ storeOutage: true });
    await expect(createBatchHandler(f.deps)(batchOf(['not json']))).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect([f.published, f.inserted]).toEqual([[], []]);
  });
});
