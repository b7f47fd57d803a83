import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors/index.js';
import type { Logger } from '../logger/index.js';
import { isPayloadOmitted, isReplayable, type DeadLetter, type ErrorTimeseries } from './cassandra-error-timeseries.js';
import { MAX_STORED_REASON_CHARS, storeDeadLetter } from './store-dead-letter.js';

const USER = '6f1c2d3e-0000-4000-8000-000000000001';
const tooBig = () =>
  new cassandra.errors.ResponseError(cassandra.types.responseErrorCodes.invalid, 'Request is too big: length 20971664');

const letter = (overrides: Partial<DeadLetter> = {}): DeadLetter => ({
  user_id: USER,
  key: 'statemachine/transition',
  type: 'message',
  write_ts: 1617919770,
  reason: 'unknown state "constructor"',
  source_topic: 'usercache',
  source_partition: 2,
  source_offset: 41,
  failed_ts: 1700000000,
  metadata_json: '{"key":"statemachine/transition"}',
  data_json: JSON.stringify({ blob: 'x'.repeat(1000) }),
  ...overrides,
});

/** An error table that answers each insert with the next of `answers` (undefined: stored). */
function table(...answers: (Error | undefined)[]) {
  const stored: DeadLetter[] = [];
  const logged: string[] = [];
  const errors = {
    async insert(l: DeadLetter) {
      const answer = answers.shift();
      if (answer) throw answer;
      stored.push(l);
    },
  } as unknown as ErrorTimeseries;
  const logger = { error: (message: string) => void logged.push(message) } as unknown as Logger;
  return { deps: { errors, logger }, stored, logged };
}

describe('storeDeadLetter', () => {
  it('When the error table takes the letter, then it is stored whole and stays replayable', async () => {
    const t = table();
    const l = letter();
    expect(await storeDeadLetter(t.deps, l)).toBe(l);
    expect(t.stored).toEqual([l]);
    expect(isReplayable(l)).toBe(true);
  });

  it('When the reason is enormous (an error message embedding its input), then it is clipped before the one write and the payload is kept', async () => {
    const t = table();
    const l = letter({ reason: `trip rebuild failed: ${'z'.repeat(20 * 1024 * 1024)}` });
    const stored = await storeDeadLetter(t.deps, l);
    expect(t.stored).toEqual([stored]);
    expect(stored.reason).toBe(`${l.reason.slice(0, MAX_STORED_REASON_CHARS)}…`);
    expect(stored.data_json).toBe(l.data_json);
    expect(isReplayable(stored)).toBe(true);
    expect(t.logged).toEqual([]);
  });

  it('When Cassandra refuses the letter for a reason that is not an outage, then a reduced letter, marked and not replayable, is stored instead', async () => {
    const t = table(tooBig());
    const huge = 'y'.repeat(100_000);
    const refused = letter({ key: `k${huge}`, reason: `rebuild failed: ${huge}` });
    const stored = await storeDeadLetter(t.deps, refused);
    expect(t.stored).toEqual([stored]);
    expect(stored).toMatchObject({
      user_id: USER,
      write_ts: 1617919770,
      source_partition: 2,
      source_offset: 41,
      metadata_json: '{}',
      reason: expect.stringMatching(
        /^payload omitted: \(refused by Cassandra: Request is too big.*\) rebuild failed: y+…$/,
      ),
    });
    expect(JSON.parse(stored.data_json)).toEqual({
      omitted_bytes: refused.metadata_json.length + refused.data_json.length,
      user_id: USER,
      key_chars: 100_001,
    });
    // Bounded, whatever made the whole letter too large.
    expect(stored.reason.length).toBeLessThan(4200);
    expect(stored.key.length).toBeLessThanOrEqual(257);
    expect(isPayloadOmitted(stored)).toBe(true);
    expect(isReplayable(stored)).toBe(false);
    expect(t.logged).toHaveLength(1);
  });

  it('When the key is no user id, then the reduced letter is kept under the nil user', async () => {
    const t = table(new TypeError('Invalid uuid'));
    const stored = await storeDeadLetter(t.deps, letter({ user_id: 'not-a-user' }));
    expect(stored.user_id).toBe('00000000-0000-0000-0000-000000000000');
    expect(JSON.parse(stored.data_json)).toMatchObject({ user_id: 'not-a-user' });
  });

  it('When even the reduced letter is refused, then the failure is logged and nothing is thrown (the partition goes on)', async () => {
    const t = table(tooBig(), tooBig());
    const stored = await storeDeadLetter(t.deps, letter());
    expect(isPayloadOmitted(stored)).toBe(true);
    expect(t.stored).toEqual([]);
    expect(t.logged).toEqual([
      'Error table refused a dead letter; storing it without its payload',
      'Error table refused the reduced dead letter too; it is only in this log',
    ]);
  });

  it.each([
    ['the first insert', [new DependencyUnavailableError('Cassandra did not answer')]],
    ['the reduced insert', [tooBig(), new DependencyUnavailableError('Cassandra did not answer')]],
  ])('When %s meets an outage, then it is thrown so the batch is retried', async (_, answers) => {
    const t = table(...answers);
    await expect(storeDeadLetter(t.deps, letter())).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(t.stored).toEqual([]);
  });

  it('A letter is replayable only when it is a phone entry kept whole', () => {
    expect(isReplayable(letter({ key: '(undecodable)' }))).toBe(false);
    expect(isReplayable(letter({ key: 'pipeline/trip-builder' }))).toBe(false);
    // The marker is only recognised where the workers put it, at the start.
    expect(isReplayable(letter({ reason: 'unknown state "payload omitted: "' }))).toBe(true);
  });
});
