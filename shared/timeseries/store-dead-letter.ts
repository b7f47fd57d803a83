import { isOutage } from '../errors/classify.js';
import type { Logger } from '../logger/index.js';
import { PAYLOAD_OMITTED_REASON, type DeadLetter, type ErrorTimeseries } from './cassandra-error-timeseries.js';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Bounds of the text a reduced letter keeps. The reason and the key may be what made Cassandra refuse the letter
 * (an error message that embeds the data, a key past the 64 KiB a clustering column takes), so the reduced letter
 * keeps only their start: enough for an operator to recognise the entry, small enough to always be accepted.
 */
const MAX_REASON_CHARS = 2000;
/**
 * Characters of a reason written at all. A reason is an operator's explanation, not evidence (the payload is kept
 * apart), and an error's message can embed whole inputs: bounding it before the write keeps a 20 MB message from
 * becoming a write that Cassandra neither takes nor refuses quickly (a timeout is an outage, retried with the batch).
 */
export const MAX_STORED_REASON_CHARS = 8000;
const MAX_KEY_CHARS = 256;
const MAX_TYPE_CHARS = 64;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * Writes a dead letter to the error table and returns what was written. Used by every worker that records a failure
 * there (the converter for entries, the trip builder for users whose rebuild fails): a failure that cannot be
 * recorded must not become a batch that kafkajs retries for ever.
 *
 * If Cassandra refuses the letter itself for a reason that is not an outage (an unreadable record whose key is no
 * user id, a payload or a reason over the request size it takes), a reduced letter is written instead: the identity
 * and the start of the reason, marked with PAYLOAD_OMITTED_REASON, without the payload, under the nil user when the
 * key is no UUID. fix-usercache-processing does not replay it (there is nothing to replay), but an operator sees it
 * and the partition moves on. If even the reduced letter is refused, the failure is logged with its identity and
 * the reduced letter is returned unstored: the log is then the only record, which is still better than a stalled
 * partition. Outages are thrown, so the worker retries its batch.
 */
export async function storeDeadLetter(
  deps: { errors: ErrorTimeseries; logger: Logger },
  whole: DeadLetter,
): Promise<DeadLetter> {
  const letter =
    whole.reason.length > MAX_STORED_REASON_CHARS
      ? { ...whole, reason: clip(whole.reason, MAX_STORED_REASON_CHARS) }
      : whole;
  try {
    await deps.errors.insert(letter);
    return letter;
  } catch (err) {
    if (isOutage(err)) throw err;
    const why = clip(err instanceof Error ? err.message : String(err), MAX_REASON_CHARS);
    const reduced: DeadLetter = {
      ...letter,
      user_id: UUID.test(letter.user_id) ? letter.user_id : NIL_UUID,
      key: clip(letter.key, MAX_KEY_CHARS),
      type: clip(letter.type, MAX_TYPE_CHARS),
      reason: `${PAYLOAD_OMITTED_REASON}(refused by Cassandra: ${why}) ${clip(letter.reason, MAX_REASON_CHARS)}`,
      metadata_json: '{}',
      data_json: JSON.stringify({
        omitted_bytes: Buffer.byteLength(letter.metadata_json) + Buffer.byteLength(letter.data_json),
        user_id: clip(letter.user_id, 200),
        ...(letter.key.length > MAX_KEY_CHARS ? { key_chars: letter.key.length } : {}),
      }),
    };
    const identity = {
      key: reduced.key,
      partition: letter.source_partition,
      offset: letter.source_offset,
    };
    deps.logger.error('Error table refused a dead letter; storing it without its payload', { ...identity, error: why });
    try {
      await deps.errors.insert(reduced);
    } catch (again) {
      if (isOutage(again)) throw again;
      deps.logger.error('Error table refused the reduced dead letter too; it is only in this log', {
        ...identity,
        user: reduced.user_id,
        writeTs: letter.write_ts,
        reason: reduced.reason,
        error: clip(again instanceof Error ? again.message : String(again), MAX_REASON_CHARS),
      });
    }
    return reduced;
  }
}
