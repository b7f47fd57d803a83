import type { Admin } from 'kafkajs';
import { groupName, topicName, type UsercacheRecord } from '../../shared/events/index.js';
import { entryDigest } from '../../shared/ids/entry-identity.js';
import { groupProgress, type KeyedProducer, type KeyedRecord } from '../../shared/kafka/index.js';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import type { ReplayReport } from '../../shared/operations/operator-actions.js';
import { isReplayable, type DeadLetter, type ErrorTimeseries } from '../../shared/timeseries/index.js';
import { REPLAY_HEADER } from './handler.js';

export interface ReplayDeps {
  errors: ErrorTimeseries;
  producer: KeyedProducer;
  admin: Admin;
  codec: AvroCodec;
  topicPrefix: string;
  /** Milliseconds to wait for the converter to process the replayed entries. @defaultValue 120000 */
  waitMs?: number;
  /** Called after each group of letters is sent, with how many have been sent so far. */
  onProgress?: (sent: number) => void;
}

/**
 * A letter's identity, hashed: what the report needs to tell "still failing" from "moved" once the converter has
 * caught up. 16 bytes of digest per letter, not the letter, so a million dead letters fit in a few tens of MB.
 */
export function letterIdentity(l: Pick<DeadLetter, 'user_id' | 'key' | 'write_ts' | 'type'>): string {
  return entryDigest(l.user_id, l.type, l.key, l.write_ts);
}

/** Letters held before they are sent: at most this many, or this many bytes (a letter can hold a 4 MiB entry). */
export const LETTERS_PER_SEND = 200;
export const BYTES_PER_SEND = 8 * 1024 * 1024;

/**
 * The usercache message that replays a dead letter: keyed by the user (so it lands on the user's partition, as the
 * gateway's records do), marked as a replay (the converter then removes the error row once the entry converts),
 * and holding the entry exactly as published. `encode` is the usercache topic's value encoder. Only for letters
 * that are isReplayable.
 */
export function replayMessage(l: DeadLetter, encode: (value: unknown) => Buffer): KeyedRecord & { value: Buffer } {
  return {
    key: Buffer.from(l.user_id),
    headers: { [REPLAY_HEADER]: Buffer.from('1') },
    value: encode({
      // The dead letter keeps the entry exactly as published, so the replay is the same record again.
      user_id: l.user_id,
      key: l.key,
      type: l.type,
      write_ts: l.write_ts,
      platform: platformOf(l.metadata_json),
      received_ts: Date.now() / 1000,
      metadata_json: l.metadata_json,
      data_json: l.data_json,
    } satisfies UsercacheRecord),
  };
}

/**
 * The spec's fix_usercache_processing: every dead letter goes back into the usercache topic (marked as a replay),
 * the converter tries it again, and what converts now leaves the error table. Safe to repeat until no errors
 * remain: a replayed entry that converts is upserted by identity, one that fails again overwrites its error row.
 * Dead letters are streamed (paged reads, sent in small groups): an error table of any size replays in bounded
 * memory, only the letters' hashed identities are kept for the report.
 */
export async function replayDeadLetters(deps: ReplayDeps): Promise<ReplayReport> {
  const usercache = topicName(deps.topicPrefix, 'usercache');
  const report: ReplayReport = { byKey: {}, notReplayable: 0, caughtUp: true };
  const replayedKeys = new Map<string, string>();
  const encode = await deps.codec.encoderFor(valueSubject(usercache));
  let pending: KeyedRecord[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    await deps.producer.send(usercache, pending);
    pending = [];
    pendingBytes = 0;
    deps.onProgress?.(replayedKeys.size);
  };
  for await (const l of deps.errors.all()) {
    // A letter stored without its payload holds a placeholder, not the entry: replaying it would only convert the
    // placeholder and fail again, so it is counted and left to the operator like the other letters of no entry.
    if (!isReplayable(l)) {
      report.notReplayable += 1;
      continue;
    }
    replayedKeys.set(letterIdentity(l), l.key);
    const message = replayMessage(l, encode);
    pending.push(message);
    pendingBytes += message.value.length;
    if (pending.length >= LETTERS_PER_SEND || pendingBytes >= BYTES_PER_SEND) await flush();
  }
  await flush();
  if (replayedKeys.size === 0) return report;

  // Wait until the converter group has committed up to the end of the topic as it was after the replay.
  const group = groupName(deps.topicPrefix, 'converter');
  const target = (await groupProgress(deps.admin, group, usercache)).partitions;
  const deadline = Date.now() + (deps.waitMs ?? 120_000);
  report.caughtUp = false;
  while (Date.now() < deadline) {
    const committed = new Map(
      (await groupProgress(deps.admin, group, usercache)).partitions.map((p) => [p.partition, p.committed]),
    );
    if (target.every(({ partition, high }) => high === 0 || (committed.get(partition) ?? -1) >= high)) {
      report.caughtUp = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  const byKey = new Map<string, { replayed: number; moved: number; stillFailing: number }>();
  const countsOf = (key: string) =>
    byKey.get(key) ?? byKey.set(key, { replayed: 0, moved: 0, stillFailing: 0 }).get(key)!;
  for (const key of replayedKeys.values()) countsOf(key).replayed += 1;
  for await (const l of deps.errors.all()) {
    const id = letterIdentity(l);
    const key = replayedKeys.get(id);
    if (key === undefined) continue;
    countsOf(key).stillFailing += 1;
    replayedKeys.delete(id);
  }
  for (const counts of byKey.values()) counts.moved = counts.replayed - counts.stillFailing;
  report.byKey = Object.fromEntries(byKey);
  return report;
}

/** The platform the entry was pushed from; a letter whose metadata does not parse is replayed without one. */
function platformOf(metadataJson: string): string | null {
  try {
    const platform = (JSON.parse(metadataJson) as { platform?: unknown } | null)?.platform;
    return typeof platform === 'string' ? platform : null;
  } catch {
    return null;
  }
}
