import { describe, expect, it } from 'vitest';
import { UNDECODABLE_KEY, type UsercacheRecord } from '../../../shared/events/index.js';
import type { PrepareRules } from './prepare-entry.js';
import {
  reasonOf,
  replaysToClear,
  sortBatch,
  withRefusals,
  type BatchMessage,
  type BatchSource,
} from './sort-batch.js';

const USER = '6f1c1d2e-0000-4000-8000-000000000001';
const source: BatchSource = { topic: 'usercache', partition: 2, now: 1_700_000_000 };

/** Rules that convert every entry but those of key `refused/by-rules`, as the conversion rules would refuse it. */
const rules: PrepareRules = {
  convert: (e) =>
    e.key === 'refused/by-rules'
      ? { ok: false, reason: 'data.ts is missing' }
      : { ok: true, entry: { key: e.key, type: e.type, writeTs: e.writeTs, dataTs: 5, metadata: {}, data: e.data } },
  objectId: () => '0123456789abcdef01234567',
};

function record(key: string, writeTs: number, dataJson = '{}'): UsercacheRecord {
  return {
    user_id: USER,
    key,
    type: 'sensor-data',
    write_ts: writeTs,
    platform: 'android',
    received_ts: 0,
    metadata_json: JSON.stringify({ key, write_ts: writeTs }),
    data_json: dataJson,
  };
}

const decoded = (offset: number, r: UsercacheRecord, replayed = false): BatchMessage => ({
  offset,
  ok: true,
  record: r,
  replayed,
});

describe('sortBatch', () => {
  it('When a batch mixes convertible, unconvertible and undecodable messages, then each lands in its bucket in batch order', () => {
    const sorted = sortBatch(
      [
        decoded(10, record('background/location', 1)),
        decoded(11, record('refused/by-rules', 2)),
        {
          offset: 12,
          ok: false,
          raw: { key: USER, timestampMs: 1_600_000_000_500, base64: 'AAE=' },
          error: 'bad magic',
        },
        decoded(13, record('background/location', 3, 'not json')),
        decoded(14, record('background/battery', 4), true),
      ],
      rules,
      source,
    );
    expect(sorted.converted.map((c) => [c.offset, c.entry.key, c.replayed])).toEqual([
      [10, 'background/location', false],
      [14, 'background/battery', true],
    ]);
    expect(sorted.deadLetters.map((l) => [l.source_offset, l.key, l.reason])).toEqual([
      [11, 'refused/by-rules', 'data.ts is missing'],
      [12, UNDECODABLE_KEY, 'undecodable record: bad magic'],
      [13, 'background/location', expect.stringMatching(/^data is not JSON/)],
    ]);
    expect(sorted.deadLetters[0]).toEqual({
      user_id: USER,
      key: 'refused/by-rules',
      type: 'sensor-data',
      write_ts: 2,
      reason: 'data.ts is missing',
      source_topic: 'usercache',
      source_partition: 2,
      source_offset: 11,
      failed_ts: 1_700_000_000,
      metadata_json: '{"key":"refused/by-rules","write_ts":2}',
      data_json: '{}',
    });
  });

  it('When a message does not decode, then its letter keeps its bytes and time, under its key or the nil user', () => {
    const sorted = sortBatch(
      [
        { offset: 1, ok: false, raw: { key: USER, timestampMs: 1_600_000_000_500, base64: 'AAE=' }, error: 'x' },
        { offset: 2, ok: false, raw: { key: null, timestampMs: 0, base64: null }, error: 'y' },
      ],
      rules,
      source,
    );
    expect(sorted.converted).toEqual([]);
    expect(sorted.deadLetters[0]).toMatchObject({
      user_id: USER,
      key: '(undecodable)',
      type: 'unknown',
      write_ts: 1_600_000_000.5,
      metadata_json: '{}',
      data_json: '{"base64":"AAE="}',
    });
    expect(sorted.deadLetters[1]).toMatchObject({
      user_id: '00000000-0000-0000-0000-000000000000',
      data_json: '{"base64":null}',
    });
  });

  it('When the batch is empty, then nothing is converted or dead-lettered', () => {
    expect(sortBatch([], rules, source)).toEqual({ converted: [], deadLetters: [] });
  });
});

describe('withRefusals', () => {
  const sorted = sortBatch(
    [
      decoded(10, record('background/location', 1)),
      decoded(11, record('refused/by-rules', 2)),
      decoded(12, record('background/location', 3), true),
      decoded(13, record('background/location', 4)),
    ],
    rules,
    source,
  );

  it('When a step refuses entries, then they leave the converted ones and follow the earlier letters, with their reason', () => {
    const later = { ...source, now: 1_700_000_100 };
    const after = withRefusals(
      sorted,
      [
        { entry: sorted.converted[2]!.entry, failure: { kind: 'refused-by-kafka', error: 'MESSAGE_TOO_LARGE' } },
        { entry: sorted.converted[1]!.entry, failure: { kind: 'refused-by-cassandra', reason: 'row too large' } },
      ],
      later,
    );
    expect(after.converted.map((c) => c.offset)).toEqual([10]);
    expect(after.deadLetters.map((l) => [l.source_offset, l.reason, l.failed_ts])).toEqual([
      [11, 'data.ts is missing', 1_700_000_000],
      [12, 'row too large', 1_700_000_100],
      [13, 'Kafka refused the converted entry: MESSAGE_TOO_LARGE', 1_700_000_100],
    ]);
    // The refused replay is no longer one to clear: its error row is rewritten, not removed.
    expect(replaysToClear(after)).toEqual([]);
    expect(sorted.converted).toHaveLength(3);
  });

  it('When nothing is refused, then the batch is unchanged, and its replays are the ones to clear', () => {
    expect(withRefusals(sorted, [], source)).toBe(sorted);
    expect(replaysToClear(sorted)).toEqual([sorted.converted[1]!.record]);
  });
});

describe('reasonOf', () => {
  it.each([
    [{ kind: 'undecodable', error: 'e' } as const, 'undecodable record: e'],
    [{ kind: 'unconvertible', reason: 'r' } as const, 'r'],
    [
      { kind: 'refused-by-cassandra', reason: 'Cassandra refused the entry: x' } as const,
      'Cassandra refused the entry: x',
    ],
    [{ kind: 'refused-by-kafka', error: 'e' } as const, 'Kafka refused the converted entry: e'],
  ])('When the failure is %o, then the reason is %s', (failure, reason) => {
    expect(reasonOf(failure)).toBe(reason);
  });
});
